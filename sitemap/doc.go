// Package sitemap owns heed's reading of sitemaps: a streaming parser for
// every format sites publish their URLs in, and a walker that follows
// sitemap indexes safely.
//
// # Parsing one document
//
// [Parse] reads one document token by token (XML) or line by line (text)
// and calls a function with each [Entry] as soon as it is complete; it
// never holds the document, so memory does not grow with its size. The
// format is detected from the content, not from the name or Content-Type:
//
//   - <urlset>: the sitemaps protocol's list of pages, with loc, lastmod,
//     changefreq and priority, and Google's image, video and news
//     extensions and xhtml:link alternates as optional fields;
//   - <sitemapindex>: a list of child sitemaps (entries of Kind
//     KindSitemap);
//   - plain text: one URL a line;
//   - RSS 2.0 (and RSS 1.0): an <item>'s <link>, its pubDate as lastmod;
//   - Atom: an <entry>'s <link href>, its updated as lastmod.
//
// Gzip is detected by its magic bytes and decompressed, whether or not the
// name ends in .gz (and a .gz name whose body an HTTP client already
// decompressed is read as it is). A BOM, an XML
// declaration, comments, CDATA and entities are handled; namespaces are
// matched on local names, so a wrong or missing namespace is tolerated
// and reported. XML is read leniently where real sitemaps are commonly
// wrong (an unescaped & in a URL, an undeclared namespace prefix) and
// stops at anything worse. Dates are read in W3C Datetime (YYYY, YYYY-MM, YYYY-MM-DD,
// with a time and zone) and RFC 822/1123; a date that cannot be read keeps
// its raw text in Entry.LastModRaw and is reported, and the entry still
// counts.
//
// # Problems, limits and scope
//
// Parse never fails on bad input and never panics: everything wrong with a
// document is a [Problem] in its [Report], and a problem that ends the
// reading (malformed XML, a truncated gzip stream, a read error) also sets
// Report.Err, after every entry read before it has been delivered. Reports
// keep the first 100 problems and count the rest, so a hostile file cannot
// grow one.
//
// The protocol's limits apply by default and can be changed: 50,000
// entries per document (entries past it are not delivered; the first of
// them is reported), 50 MiB uncompressed per document (decompression stops
// there, so a gzip bomb costs nothing), 2,048 characters per loc. Against hostile
// input, XML nesting, the size of one XML token and the number of
// extensions per URL are bounded too, and no entity is ever expanded
// except XML's five predefined ones and character references: an entry
// whose loc holds any other entity reference (external, defined in a
// DOCTYPE, undefined) names no known URL and is dropped and reported
// (ProblemEntity), never delivered with "&name;" in it; an xhtml:link
// alternate without href, or with such a reference, is dropped too.
//
// A sitemap may list only URLs within its scope (see [Scope]); the default
// is its authority (scheme, host and port), and [ScopeDirectory] is the
// protocol's stricter rule. An entry that is out of scope, not a valid
// http(s) URL or too long is still delivered, with Entry.Problem set, so
// that the caller can account for it; the caller must not fetch it.
//
// # Walking indexes
//
// [Walk] reads root sitemaps (from robots.txt Sitemap: lines, or
// /sitemap.xml) through a [FetchFunc] the caller supplies, follows the
// indexes among them depth first, and delivers every URL entry with the
// sitemap it came from. It fetches each sitemap once, detects loops (an
// index listing itself or a cycle), stops at a depth and a count of
// sitemaps, and records a [SitemapReport] for every sitemap, with its
// fetch error if any: one failing sitemap does not stop the others.
//
// # What it does not do
//
// The package does no I/O of its own: fetching, robots.txt rules and
// pacing are the FetchFunc's. It does not deduplicate URLs across
// sitemaps, canonicalise them for the frontier, or filter them by pattern
// or date (heed's crawler and `heed inventory` do); it gives them what they
// need to: Entry.Sitemap, Entry.LastMod and the reports.
package sitemap

// Package robots is heed's robots.txt engine: it reads a robots.txt file as
// RFC 9309 (the Robots Exclusion Protocol) specifies and answers, for one
// crawler and one URL, whether the crawler may fetch it — and why.
//
// # The model
//
// A robots.txt file is a list of groups. A group starts with one or more
// User-agent lines naming crawlers by product token ("ExampleBot") or all
// crawlers ("*"), and holds Allow and Disallow rules whose values are path
// patterns. A crawler obeys exactly one group: every group naming its token
// (compared case-insensitively, as a whole token), merged; when none does,
// the "*" groups, merged; when there is none, nothing is disallowed. A
// group naming the crawler replaces "*": it does not add to it.
//
// Within the group, the rule with the longest pattern that matches the
// URL's path and query decides; between an Allow and a Disallow of the same
// length, Allow wins; when no rule matches, the URL is allowed. Patterns
// match from the start of the path; "*" matches any run of octets and a
// final "$" anchors the end; a pattern writes a literal "*" or "$" as %2A
// or %24 (RFC 9309 §2.2.3), which match the URL's "*" and "$". Both sides
// are normalised first (RFC 9309 §2.2.2): octets outside ASCII and the
// characters a URL carries only encoded (space, "<", "{", ...) are
// percent-encoded, percent-encoded unreserved characters are decoded,
// other escapes are kept (so /a%2Fb is not /a/b). A pattern that starts
// with neither "/" nor "*" matches nothing, as in Google's open-source
// matcher. /robots.txt itself is always allowed.
//
// # Using it
//
// Parse a body once, select the crawler's group once, then decide for as
// many URLs as needed:
//
//	f := robots.Parse(body)            // never fails
//	g := f.Group("ExampleBot")         // never nil
//	v := g.Decide(u.RequestURI())      // or g.DecideURL(u)
//	if !v.Allowed {
//		log.Printf("skip %s: %v", u, v) // disallowed by line 4 "Disallow: /private/" of user-agent "*" (line 1)
//	}
//
// A [Verdict] carries its evidence: the deciding [Rule] (line number, the
// line as written, the normalised pattern), whether /robots.txt was allowed
// implicitly, and the [GroupMatch] saying which user-agent lines chose the
// group. A [Group] is immutable: share one between goroutines. Decide does
// not allocate for paths that need no normalisation rewrite, and its time
// is linear in the path length for every rule, whatever the patterns
// (there are no regular expressions and no backtracking).
//
// Besides the rules, a [File] has the Sitemap lines ([File.Sitemaps],
// [File.ResolveSitemaps]), a Crawl-delay per group ([Group.CrawlDelay];
// fractions allowed, values past the longest time.Duration saturating at
// it, invalid values ignored, a named group does not inherit
// the "*" group's), and a [Report] of how it was read: skipped lines and
// why, invalid Crawl-delay values, and whether the body was cut at the size
// limit.
//
// A group may also hold Content-Usage rules (draft-ietf-aipref-attach-05):
// [Group.Usage] returns the rules that decide a URL's AI usage
// preference (the longest matching path, every rule when paths are
// identical; none for a URL that may not be crawled), with their lines;
// heed's aipref package reads the preferences they state.
//
// [Lint] reads the same body for its author: it reports, with line numbers
// and stable codes, the traps that make a file mean something else than it
// seems (a named group that silently drops the "*" rules, a Sitemap line
// that merges two groups, misspelled fields, a trailing "*", a Disallow
// that advertises /admin/, content past 500 KiB, ...).
//
// # Tolerance
//
// Parse never fails, and accepts what large crawlers accept: CR, LF and
// CRLF line ends, a UTF-8 byte-order mark, comments, white space around
// the colon, field names in any case, a missing colon between two words
// ("disallow /"), and common misspellings ("useragent", "dissallow",
// "crawl delay", "site-map"). Lines that still make no sense are skipped
// and listed in the Report; rules before any User-agent line are ignored.
// A line that is not a rule or a User-agent line (Sitemap, Crawl-delay, an
// unknown field, a blank line) does not end a run of User-agent lines.
// Only the first 500 KiB are read ([DefaultMaxBytes], raised with
// [WithMaxBytes]); a line cut by the limit is dropped.
//
// # What it does not do
//
// The package does no I/O. Fetching robots.txt, what HTTP status codes and
// redirects mean, caching and refreshing belong to heed's middleware;
// pacing by Crawl-delay belongs to heed's politeness package. Callers pass
// the crawler's product token (see [ValidProductToken]), not a User-Agent
// header, and the URL's escaped path and raw query exactly as sent.
package robots

// Package htmlpage bounds what heed spends on one HTML page, and reads
// what it can without a tree.
//
// The model: memory for HTML is bounded by what a page may cost, not by
// what it holds. A body is capped in bytes elsewhere (the downloader's
// body limit), but a tree is not proportional to bytes: ten MiB of
// <a href=/x>a</a> is 655,360 elements, half a gigabyte of nodes. So:
//
//   - Cut gives the part of a body that a tree of at most max elements
//     holds: the crawler parses only that part and counts the page as cut;
//   - a Budget bounds the elements of the trees in use at once: a page
//     that would go over waits for another page's tree to be released
//     (pages under SmallParse elements never wait);
//   - Scan reads a page's a[href] links, its first base href and its meta
//     robots directives in one pass, without building a tree, for pages
//     whose only consumer needs links (FollowLinks). The pass is a lexer
//     that finds start tags where golang.org/x/net/html's tokenizer does,
//     working on the body in place (no copy of the page, no string per
//     tag: a page costs its links' strings); a body with NUL bytes or of
//     a MiB or more goes through the tokenizer itself;
//   - Resolve turns a link found on a page into the absolute http(s) URL
//     the crawl follows (crawler's Response.AbsoluteURL is it), against
//     the page's base (BaseOf: its base href, or its URL): "" for what is
//     not crawlable (mailto:, javascript:, a lone fragment), the link as
//     written when it does not parse even repaired, so that the crawl
//     records it as invalid; ResolvePlain, its fast path, resolves the
//     plain links most pages hold (an absolute path, a plainly written
//     http(s) URL) without net/url, and gives up (ok false) on anything
//     net/url must resolve. LinkRel says whether an element's rel
//     attribute is about the link a callback follows.
//
// The contract of Scan: where it answers (LinksOK), it finds the links
// the DOM would, and its meta robots are exactly pagerobots.ScanHTML's
// (FuzzScanLinks and TestScanMetaAgreesWithPagerobots check both; the
// lexer's start tags are the tokenizer's, FuzzLexAgreesWithTokenizer). The
// limits: it gives up (LinksOK false) where the tree builder rewrites what
// the tokenizer sees: inside select, framesets, foreign content (svg,
// math), NUL bytes, a second base element, a page cut by the element
// limit, more links than the limit. The caller then builds the DOM.
// The contract of ResolvePlain: where it answers, it answers what
// net/url's URL.Parse does, the fragment dropped (FuzzResolvePlain); of
// Resolve: "", the link as written, or a URL net/url parses (FuzzResolve).
// The package reads bytes; it does not fetch, follow or count.
package htmlpage

// Package pagerobots reads the robots directives a page gives about
// itself, outside robots.txt: the <meta name="robots"> element, the meta
// element naming one crawler (<meta name="ExampleBot">), and the
// X-Robots-Tag response header, for HTML and every other kind of response.
//
// # The model
//
// A statement is one meta element or one X-Robots-Tag field line. It holds
// a comma-separated list of directives ("noindex, nofollow") and applies
// to every crawler, or to the one it names: the meta element's name is
// "robots" or a product token, and a header value may start with a
// product token and a colon ("ExampleBot: noindex"), which then names the
// crawler for the rest of that line (until another "token:" starts).
// Tokens are compared case-insensitively; statements naming other crawlers
// are ignored. Every [Directive] keeps its evidence: where it was said
// ([SourceMeta] with the line of the element, or [SourceHeader]), the
// statement as written, and the directive as written.
//
// [Directives] is what a page says to one crawler: [Directives.Has]
// answers for a directive, counting "none" as "noindex" and "nofollow"
// (the convention large crawlers document), and
// [Directives.Find] returns the directive that said it, for a skip record.
//
// # Vocabulary
//
// The directives heed knows are listed in one table ([Known]): noindex,
// nofollow, none, noarchive, nosnippet, noimageindex, unavailable_after
// (with its date as written), the widely deployed noai and noimageai, and
// the common others (all, index, follow, nocache, notranslate,
// indexifembedded, max-snippet, max-image-preview, max-video-preview). A
// directive outside it is kept with Known false and listed by
// [Directives.Unknown], never an error.
//
// # Limits
//
// [ScanHTML] reads an HTML document with golang.org/x/net/html's
// tokenizer, so memory stays bounded by the longest token; it reads meta
// elements anywhere in the document (pages put them in the body too), at
// most [MaxStatements] statements, and stops at the byte limit it is
// given. [ParseHeader] reads at most MaxStatements field lines. Nothing
// here fetches, decides a crawl or writes a log: heed's crawler applies
// the directives (nofollow by default) and logs each exclusion with the
// evidence kept here.
package pagerobots

// Package download is heed's downloader: the bottom of the middleware
// chain, a middleware.Fetcher built on a colly Collector that is used only
// to download. The engine (package crawler) makes one per run from a
// Config its options fill; a program may use one alone under its own
// stages.
//
// # Model
//
// Fetch sends one request and returns one response. Everything a crawl
// decides is decided above it: colly's robots.txt check and visited set
// are off (the robots stage and the frontier own those), and redirects are
// not followed: a 3xx comes back as it is, so that each hop goes back
// through the frontier and the whole chain, the robots.txt of the hop's
// authority included. A request that colly itself is asked to make is
// never sent: the downloader hands one on its own collector to
// Config.Stray, and View, colly's view of a page for the callbacks, hands
// what its request is asked to Visit or Post to the engine, for it to
// follow as a link.
//
// # Contract
//
//   - Bodies are bounded after decompression: the transport under colly
//     decompresses gzip itself and reads at most MaxBody+1 bytes, so
//     neither a huge page nor a compressed bomb grows memory; a longer
//     body is cut to MaxBody and the response marked Truncated.
//   - Fetch's context reaches the network: colly takes no context per
//     request, so each call is given an id in a header the transport
//     removes before the request leaves, and the transport sends the
//     request and reads its body under the call's context, which carries
//     the call's cancellation and Config.Timeout. The body is read into
//     one buffer of its declared length when that is small, and handed
//     to colly read.
//   - A download cut by Config.Timeout fails with a *TimeoutError, which
//     names the timeout and its value (for the skip log's fetch-error
//     records) and still matches context.DeadlineExceeded; one ended by
//     the caller's context fails with that context's error.
//   - The User-Agent is Config.UserAgent on every request; a request's own
//     headers go with it, but never its own User-Agent (the robots.txt
//     group heed obeys is the one the site sees addressed).
//   - Cookies are kept per authority (scheme, host and port), stricter
//     than a browser's jar: a cookie one authority set never reaches
//     another, whatever its Domain, so a link or a redirect to another
//     authority carries no credentials.
//   - Sitemaps (requests of Kind KindSitemap) bypass colly and the page
//     cap: discovery.Download streams them on the same transport with the
//     same User-Agent and timeout, for the sitemap parser's own limits.
//
// # Limits
//
// Only gzip is decompressed here (net/http's transport decompresses what
// it asked for itself); a body whose headers claim gzip but whose bytes
// are not is passed on as it is. The jar lives as long as the Downloader:
// cookies are not kept across runs. DefaultUserAgent, CheckUserAgent and
// CheckHeader are the identity rules the engine refuses options by.
package download

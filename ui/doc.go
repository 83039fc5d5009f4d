// Package ui serves heed's local web pages: a robots.txt tester, the live
// view of a running crawl, a job at rest (a state directory, or a fleet's
// shared counters and queue), and the sitemap inventory as one
// self-contained HTML report.
//
// # The model
//
// A Server is an http.Handler built from the library calls heed's command
// line makes: the tester fetches a robots.txt with middleware.FetchRobots
// (RFC 9309's status codes and redirects) and decides every URL with
// middleware.DecideRobots, the one decision the crawl, the inventory and
// `heed robots check` share, and reports each verdict as the
// middleware.RobotsReport they write too; the lint findings are robots.Lint's and the
// line numbers robots.Lines'. The page never decides anything itself: what
// it shows is the evidence a skip-log record would carry, placed on the
// lines of the file.
//
// The live view reads a running crawl through a Monitor: it samples the
// crawl's Stats once a second, keeps the last records of the skip log (the
// crawler's OnSkip hook), and reads the queue and each authority's pacing
// (crawler.Live, politeness's start log) only while a page is open. Pages
// update by server-sent events carrying the same JSON the /api/live
// endpoint serves.
//
// Everything is rendered on the server with html/template, charts
// included (SVG); the style sheet and the one small script are embedded
// in the binary. No page loads anything from elsewhere, and a Server
// changes nothing: the tester's form and its JSON twin (/api/robots) are
// the only POSTs, and they compute an answer, like a GET.
//
// # Limits
//
// The tester fetches robots.txt URLs on the visitor's behalf: only http
// and https, at most DefaultFetchBytes, DefaultFetchTimeout and five
// redirects. That is why heed binds the pages to loopback unless told
// otherwise: a Server reachable from a network lets anyone who can reach it
// make this machine fetch URLs (including ones only this machine can see).
// Pasted files are read up to DefaultFetchBytes, and at most MaxURLs URLs
// are decided per request. The live view keeps the last MaxSkips skip-log
// records and shows at most MaxAuthorities authorities (those with the most
// requests), so that a crawl of a million hosts costs the page what one of
// a thousand does.
package ui

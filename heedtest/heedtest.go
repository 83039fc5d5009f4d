// Package heedtest is heed's kit for testing spiders and the programs
// that wear heed's command line: local websites on loopback, and readers
// that check what a crawl wrote. Nothing in it reaches the network.
//
// # Sites
//
// A Site is a website on loopback addresses (127.0.0.0/8):
//
//   - StartGenerated serves heed's generated site: hosts of linked pages,
//     some paths disallowed by robots.txt, links across hosts, all drawn
//     from a seed, so a crawl of it is the same every time. Its oracle,
//     Expected, says which URLs a whole-site crawl fetches and why each
//     other discovered URL is skipped.
//   - StartScenario serves heed's scenario site, the one `heed demo`
//     crawls: a dozen hosts, each exercising one part of RFC 9309
//     (group selection, longest match, robots.txt status codes and
//     redirects, Crawl-delay, sitemaps), with its oracle.
//   - ServeFiles serves a directory of fixture pages (and its robots.txt,
//     if it has one) on one host.
//
// NewGenerated, NewScenario and NewFiles are the same for a test: the
// site is closed when the test ends, and an error fails it. A program's
// own demo command (see package cli) can start a site with the Start
// functions.
//
// CrawlArgs are the command-line arguments that crawl a whole site with a
// program wearing heed's command line: its domains allowed, then its
// seeds.
//
// # Readers
//
// ReadSkipLog and ReadFeed read a crawl's skip log and JSON Lines feed
// and fail the test on what a crawl must never write: a line that is not
// a whole record, or two skip-log records for one URL.
//
// # Limits
//
// The generated site's size is capped (see Generated) so a mistake cannot
// exhaust the machine. The hosts bind 127.0.0.2 and up, which Linux routes
// to the loopback interface; elsewhere, use ServeFiles (127.0.0.1).
package heedtest

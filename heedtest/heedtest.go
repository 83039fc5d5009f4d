// Package heedtest helps test heed spiders, and the programs that wear
// heed's command line, without the network.
//
// # One callback on a fixture
//
// Build a response from a saved page (a fixture) or a string, run one
// callback of a spider on it and look at the items and requests it
// produced:
//
//	func TestParseProduct(t *testing.T) {
//		resp := heedtest.MustFixture(t, "testdata/product.html", "https://shop.example/p/1")
//		res := heedtest.MustParse(t, &shopSpider{}, "product", resp)
//		// res.Items, res.Requests
//	}
//
// A fixture is a file holding a response body, as `heed fetch URL
// --fixture FILE` saves it; beside it, FILE.meta.json may hold the URL,
// status and headers it was served with, so a test need not repeat the
// URL. ServeDir serves a directory of such files as a Site, to crawl it
// whole.
//
// # heed's own test websites
//
// A Web is one of the websites heed tests itself on, on loopback
// addresses (127.0.0.0/8), with its oracle:
//
//   - StartGenerated serves the generated site: hosts of linked pages,
//     some paths disallowed by robots.txt, links across hosts, all drawn
//     from a seed, so a crawl of it is the same every time. Expected
//     says which URLs a whole-site crawl fetches and why each other
//     discovered URL is skipped.
//   - StartScenario serves the scenario site, the one `heed demo`
//     crawls: twenty hosts, each exercising one part of RFC 9309
//     (group selection, longest match, robots.txt status codes and
//     redirects, Crawl-delay, sitemaps).
//
// NewGenerated and NewScenario are the same for a test: the site is
// closed when the test ends, and an error fails it. A program's own demo
// command (see package cli) starts one with the Start functions.
// CrawlArgs are the arguments that crawl a whole Web with a program
// wearing heed's command line: its domains allowed, then its seeds.
//
// # Reading what a crawl wrote
//
// ReadSkipLog and ReadFeed read a crawl's skip log and JSON Lines feed
// and fail the test on what a crawl must never write: a line that is not
// a whole record, or two skip-log records for one URL.
//
// # Limits
//
// A Web wraps heed's internal test site: a user's program imports only
// heedtest, never an internal package. The generated site's size is
// capped (see Generated) so a mistake cannot exhaust the machine. Its
// hosts bind 127.0.0.2 and up, which Linux routes to the loopback
// interface; elsewhere, use ServeDir (127.0.0.1).
package heedtest

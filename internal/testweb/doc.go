// Package testweb owns heed's deterministic multi-host website on loopback:
// the site heed's tests, the `heed demo` command and heed's benchmarks
// crawl, and the oracle that says what a correct crawl of it does.
//
// # Hosts and authorities
//
// Every host is its own authority (scheme, host and port): host N listens
// on 127.0.0.N (N from 2 upward; Linux routes all of 127.0.0.0/8 to lo) on
// a port the kernel chooses, except the three "ports" hosts, which share
// one address on different ports (two http, one https). [WithSingleAddress]
// puts every host on one address instead. The https host uses a
// certificate made at start; [Site.Client], [Site.Transport],
// [Site.TLSConfig] and [Site.CertPool] trust it.
//
// # The scenario
//
// [StartScenario] serves a fixed site whose hosts (see the Host* constants)
// each exercise one part of RFC 9309 and heed's contracts: group selection
// (a named group replaces "*", groups naming the agent merge, a Sitemap
// line between user-agent lines does not end a group), longest match with
// "*", "$", queries and percent-encoding, robots.txt status codes (404,
// 403, 500, 503 then 200, a timeout), redirects of robots.txt (5 allowed,
// 6 too many), a file past the 500 KiB parse limit, Crawl-delay, page
// redirects (chains, loops, limits, redirects into disallowed paths),
// 429 and 503 with Retry-After, a robots.txt that changes, and sitemaps.
// [Site.Seeds] is main's root page; every host is reachable from it.
//
// # The oracle
//
// [Site.Expected] says which URLs a whole-site crawl fetches and why each
// other discovered URL is skipped, with the robots.txt line, rule and group
// that decide it; [Site.ExpectedSitemaps] does the same for sitemap
// discovery. The oracle does not evaluate robots.txt: it is the independent
// reference heed's robots engine is judged against, so testweb never
// imports heed's robots package. Each served robots.txt is rendered from
// declared lines, and each rule line lists by hand the URIs it decides;
// line numbers are exact because body and annotations are the same data.
//
// Every request is recorded ([Site.Hits]) with its arrival time, taken
// before any sleep, so tests can check order, pacing and what was never
// requested.
//
// # Configuring a crawler under test
//
// The oracle assumes a crawler set up like heed's defaults, plus:
//
//   - Transport: [Site.Transport] (or its TLS config), so the https host
//     is trusted; never a proxy.
//   - Scope: allowed domains [Site.Domains], so [OffsiteURL] is offsite.
//   - robots.txt timeout below the slow host's delay ([WithTimeout],
//     default [DefaultSlowDelay]); tests use e.g. 300 ms against 100 ms.
//     Give up on an unreachable robots.txt after a bounded number of
//     retries, or the crawl never ends.
//   - robots.txt retried after a 5xx with short backoff, at least three
//     tries in all, so the flaky host ([FlakyFailures] failures) recovers.
//   - Page redirects: at most [DefaultRedirectLimit] (or tell the oracle
//     with [RedirectLimit]); robots.txt redirects: [RobotsRedirectLimit].
//   - Parse limit [RobotsParseLimit]; Crawl-delay honoured
//     ([DelayCrawlDelay] on the delay host); Retry-After honoured (1 s
//     on the ratelimit host's two pages).
//   - One robots.txt fetch per authority for the whole crawl. A test of
//     freshness instead sets a short max-age and checks the hits: after
//     the changing host's "v2" robots.txt hit is answered ([Hit.Done]),
//     no /v2-blocked/ page may arrive.
//
// [Site.PageRequests] turns the hit log into the set of requested pages,
// the thing to compare with [Expected.Fetched]; the skip log compares with
// [Expected.Skipped].
//
// # Generated sites
//
// [StartGenerated] serves a synthetic site of many hosts and pages for
// benchmarks, derived from a seed; pages are rendered on request, and the
// oracle covers them too.
//
// # What testweb is not
//
// It is not a general web server or a robots.txt implementation, and it is
// not fast in the way a production server is: it is built to be exact and
// deterministic. It never touches the network beyond loopback. Its
// history-dependent answers (the flaky and changing robots.txt, the
// rate-limited pages) count requests per Site: start a new Site for each
// crawl a test makes.
package testweb

package testweb

import (
	"fmt"
	"net/http"
)

// The scenario's hosts, by name. Each is its own authority; see the package
// documentation for what each one exercises.
const (
	HostMain      = "main"      // rich robots.txt, two groups, 46 pages, links to every host
	HostDelay     = "delay"     // Crawl-delay: 0.2 (CRLF line ends); a chain and a fan-out
	HostNoRobots  = "norobots"  // robots.txt 404; /sitemap.xml fallback
	HostForbidden = "forbidden" // robots.txt 403: no restrictions
	HostBroken    = "broken"    // robots.txt always 500: nothing may be fetched
	HostFlaky     = "flaky"     // robots.txt 503 twice, then 200 with Disallow: /nope/
	HostSlow      = "slow"      // robots.txt slower than the crawler's timeout
	HostRedir5    = "redir5"    // robots.txt after exactly 5 redirects (last ones on files)
	HostRedir6    = "redir6"    // robots.txt after 6 redirects: unavailable
	HostFiles     = "files"     // where redir5 and redir6 end up; no pages
	HostBig       = "big"       // ~600 KiB robots.txt, a rule past 500 KiB
	HostNamed     = "named"     // "*" disallows all; the heedbot group only /nope/
	HostMerge     = "merge"     // a Sitemap line between two user-agent lines
	HostPortsA    = "ports-a"   // http, same address as ports-b and ports-tls
	HostPortsB    = "ports-b"   // http, another port
	HostPortsTLS  = "ports-tls" // https on that address: the site's TLS host
	HostRedirects = "redirects" // page redirects: chain, blocked, loop, limit, cross-host
	HostRateLimit = "ratelimit" // pages answering 429 / 503 with Retry-After once
	HostChanging  = "changing"  // robots.txt v1 on the first fetch, v2 afterwards
	HostMaps      = "maps"      // sitemap index, urlset, gzip, text, a disallowed sitemap
)

// Constants a crawler test needs to agree with the scenario.
const (
	// DelayCrawlDelay is the Crawl-delay the delay host asks for.
	DelayCrawlDelay = 0.2
	// RobotsParseLimit is how much of a robots.txt heed must parse
	// (RFC 9309 §2.5 asks for at least 500 KiB); the big host puts its
	// /late/ rule beyond it and expects that rule ignored.
	RobotsParseLimit = 500 * 1024
	// RobotsRedirectLimit is how many robots.txt redirects heed follows
	// (RFC 9309 §2.3.1.2); redir5 needs exactly that many, redir6 one more.
	RobotsRedirectLimit = 5
	// DefaultRedirectLimit is how many page redirects the oracle assumes a
	// crawler follows before giving up (see [RedirectLimit]).
	DefaultRedirectLimit = 10
	// FlakyFailures is how many times the flaky host answers its
	// robots.txt with 503 before it recovers.
	FlakyFailures = 2
	// OffsiteURL is the one link of the scenario to a host that is not
	// part of the site (it does not resolve).
	OffsiteURL = "http://offsite.invalid/page"
)

// scenarioLayout places the hosts: host N of the list listens on
// 127.0.0.<addr>; the three ports hosts share one address.
var scenarioLayout = []struct {
	name  string
	addr  int
	tls   bool
	build func(*scenario) *scenarioHost
}{
	{HostMain, 2, false, (*scenario).mainHost},
	{HostDelay, 3, false, (*scenario).delayHost},
	{HostNoRobots, 4, false, (*scenario).noRobotsHost},
	{HostForbidden, 5, false, (*scenario).forbiddenHost},
	{HostBroken, 6, false, (*scenario).brokenHost},
	{HostFlaky, 7, false, (*scenario).flakyHost},
	{HostSlow, 8, false, (*scenario).slowHost},
	{HostRedir5, 9, false, (*scenario).redir5Host},
	{HostRedir6, 10, false, (*scenario).redir6Host},
	{HostFiles, 11, false, (*scenario).filesHost},
	{HostBig, 12, false, (*scenario).bigHost},
	{HostNamed, 13, false, (*scenario).namedHost},
	{HostMerge, 14, false, (*scenario).mergeHost},
	{HostPortsA, 15, false, (*scenario).portsAHost},
	{HostPortsB, 15, false, (*scenario).portsBHost},
	{HostPortsTLS, 15, true, (*scenario).portsTLSHost},
	{HostRedirects, 16, false, (*scenario).redirectsHost},
	{HostRateLimit, 17, false, (*scenario).rateLimitHost},
	{HostChanging, 18, false, (*scenario).changingHost},
	{HostMaps, 19, false, (*scenario).mapsHost},
}

// ScenarioHosts is how many hosts (authorities) the scenario has, and
// ScenarioAddresses how many loopback addresses they listen on: what a
// description of the site says without starting it.
func ScenarioHosts() int { return len(scenarioLayout) }

// ScenarioAddresses: see ScenarioHosts.
func ScenarioAddresses() int {
	addrs := map[int]bool{}
	for _, l := range scenarioLayout {
		addrs[l.addr] = true
	}
	return len(addrs)
}

// StartScenario starts the fixed scenario site: every host of the Host*
// constants on its own loopback authority. Seeds returns main's root,
// from which every host is linked.
func StartScenario(opts ...Option) (*Site, error) {
	cfg := newConfig(opts)
	plans := make([]hostPlan, len(scenarioLayout))
	for i, l := range scenarioLayout {
		plans[i] = hostPlan{name: l.name, ip: fmt.Sprintf("127.0.0.%d", l.addr), tls: l.tls}
	}
	return start(cfg, plans, func(s *Site) error {
		b := &scenario{s: s}
		for _, l := range scenarioLayout {
			h := l.build(b)
			if h.err != nil {
				return fmt.Errorf("host %s: %w", l.name, h.err)
			}
			s.byName[l.name].content = h
		}
		s.seeds = []string{s.byName[HostMain].BaseURL}
		return nil
	})
}

// scenario builds the hosts' content once every authority is known.
type scenario struct{ s *Site }

// url returns the absolute URL of uri on the named host.
func (b *scenario) url(host, uri string) string { return b.s.byName[host].Authority + uri }

// scenarioHost is the declared content of one scenario host.
type scenarioHost struct {
	outcome      robotsOutcome
	pages        map[string]*page
	order        []string
	routes       map[string]route
	sitemapLines []string
	sitemaps     map[string]*sitemapDecl
	// err is a declaration mistake (a page declared twice), reported by
	// StartScenario.
	err error
}

func newScenarioHost() *scenarioHost {
	return &scenarioHost{pages: map[string]*page{}, routes: map[string]route{}, sitemaps: map[string]*sitemapDecl{}}
}

func (h *scenarioHost) serve(s *Site, w http.ResponseWriter, r *http.Request) string {
	if rt := h.routes[r.RequestURI]; rt != nil {
		return rt(s, w, r)
	}
	return static(http.StatusNotFound, ctypeText, []byte("404 not found\n"), "")(s, w, r)
}

func (h *scenarioHost) robotsFor(string) robotsOutcome { return h.outcome }

func (h *scenarioHost) page(uri string) pageView {
	if p := h.pages[uri]; p != nil {
		return p.view()
	}
	return pageView{status: http.StatusNotFound}
}

func (h *scenarioHost) isPage(uri string) bool {
	if isInfrastructure(uri) {
		return false
	}
	if h.pages[uri] != nil {
		return true
	}
	// Routes that are not pages are robots.txt hops and files, and
	// sitemaps; anything else is a request for a page that is not there.
	return h.routes[uri] == nil
}

// add declares pages and serves them.
func (h *scenarioHost) add(ps ...*page) {
	for _, p := range ps {
		if _, dup := h.pages[p.uri]; dup {
			h.err = fmt.Errorf("testweb: page %s declared twice", p.uri)
			continue
		}
		h.pages[p.uri] = p
		h.order = append(h.order, p.uri)
		switch {
		case p.serve != nil:
			h.routes[p.uri] = p.serve
		case p.status != 0:
			h.routes[p.uri] = redirect(p.status, p.location, "")
		default:
			h.routes[p.uri] = static(http.StatusOK, ctypeHTML, p.render(), "")
		}
	}
}

// robots serves f at /robots.txt with 200 and makes it the host's rules.
func (h *scenarioHost) robots(f *robotsFile) {
	h.routes["/robots.txt"] = static(http.StatusOK, ctypeText, f.body(), "")
	h.outcome = robotsOutcome{status: http.StatusOK, file: f}
}

// robotsStatus answers /robots.txt with status and no rules.
func (h *scenarioHost) robotsStatus(status int) {
	h.routes["/robots.txt"] = static(status, ctypeText, []byte(http.StatusText(status)+"\n"), "")
	h.outcome = robotsOutcome{status: status, unreachable: status >= 500}
}

// pg declares an ordinary page.
func pg(uri, title string, links ...string) *page {
	return &page{uri: uri, title: title, links: links,
		text: "This page is " + uri + " of heed's loopback test site."}
}

// note replaces the page's text with why it exists.
func (p *page) note(text string) *page {
	p.text = text
	return p
}

// hop declares a page that redirects.
func hop(uri string, code int, location string) *page {
	return &page{uri: uri, status: code, location: location}
}

// pagesUnder declares a root page linking n pages /<prefix>1.. and those
// pages, each linking back to the root.
func pagesUnder(title string, names ...string) []*page {
	root := pg("/", title+": home")
	out := []*page{root}
	for _, n := range names {
		root.links = append(root.links, n)
		out = append(out, pg(n, title+": "+n, "/"))
	}
	return out
}

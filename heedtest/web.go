package heedtest

import (
	"net/http"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
)

// Generated describes a generated site: how many hosts, pages per host,
// page size, links per page, the share of links to other hosts and to
// paths robots.txt disallows, a Crawl-delay, and the seed everything is
// drawn from.
type Generated = testweb.Generated

// Expected is what a correct whole-site crawl of a generated or scenario
// site does: the URLs it fetches and, for every other URL it discovers,
// the skip-log record it writes (reason, and the robots.txt line and rule
// that decided).
type Expected = testweb.Expected

// ExpectedSkip is one URL's expected skip-log record.
type ExpectedSkip = testweb.ExpectedSkip

// The hosts of the scenario site that a test or demo may name; HostURL
// takes them.
const (
	HostMain = testweb.HostMain // robots.txt with groups and rules; every host is reachable from it
	HostMaps = testweb.HostMaps // sitemaps: an index, a urlset, gzip, text, a disallowed sitemap
)

// Web is one of heed's own test websites on loopback: the generated site
// or the scenario site, with its oracle. It is safe for concurrent use;
// Close it when done (NewGenerated and NewScenario do it when the test
// ends). A directory of fixture pages is served by ServeDir instead.
type Web struct {
	web *testweb.Site
}

// StartGenerated starts the generated site g describes.
func StartGenerated(g Generated) (*Web, error) {
	web, err := testweb.StartGenerated(g)
	if err != nil {
		return nil, err
	}
	return &Web{web: web}, nil
}

// StartScenario starts the scenario site. Its slow host answers after
// three seconds: crawl it with a timeout of a second or two.
func StartScenario() (*Web, error) {
	web, err := testweb.StartScenario()
	if err != nil {
		return nil, err
	}
	return &Web{web: web}, nil
}

// NewGenerated starts a generated site for the test, closed when it ends.
func NewGenerated(tb testing.TB, g Generated) *Web {
	tb.Helper()
	return started(tb)(StartGenerated(g))
}

// NewScenario starts the scenario site for the test, closed when it ends.
func NewScenario(tb testing.TB) *Web {
	tb.Helper()
	return started(tb)(StartScenario())
}

func started(tb testing.TB) func(*Web, error) *Web {
	return func(s *Web, err error) *Web {
		tb.Helper()
		if err != nil {
			tb.Fatalf("heedtest: %v", err)
		}
		tb.Cleanup(s.Close)
		return s
	}
}

// Close stops the site's hosts. What it recorded stays readable.
func (s *Web) Close() {
	s.web.Close()
}

// Seeds are the start URLs of a whole-site crawl.
func (s *Web) Seeds() []string {
	return s.web.Seeds()
}

// Domains are the site's hosts as a crawl's allowed domains.
func (s *Web) Domains() []string {
	return s.web.Domains()
}

// CrawlArgs are the arguments of crawl that crawl the whole site: an
// --allow-domain for each of its domains, then its seeds.
func (s *Web) CrawlArgs() []string {
	var args []string
	for _, d := range s.Domains() {
		args = append(args, "--allow-domain", d)
	}
	return append(args, s.Seeds()...)
}

// URL is the absolute URL of path (with an optional query) on the site's
// first host: the generated site's first host, the scenario's main host.
func (s *Web) URL(path string) string {
	return s.web.Hosts()[0].URL(path)
}

// HostURL is the absolute URL of path on the scenario host called name
// (HostMain, HostMaps); "" when the site has no such host.
func (s *Web) HostURL(name, path string) string {
	if s.web.Host(name) == nil {
		return ""
	}
	return s.web.Host(name).URL(path)
}

// Transport reaches every host of the site (the scenario's https host
// included): give it to crawler.WithTransport.
func (s *Web) Transport() http.RoundTripper {
	return s.web.Transport()
}

// PageRequests counts the requests the site answered by URL, robots.txt
// and sitemaps not included.
func (s *Web) PageRequests() map[string]int {
	return s.web.PageRequests()
}

// Expected is the oracle of a whole-site crawl by agent.
func (s *Web) Expected(agent string) Expected {
	return s.web.Expected(agent)
}

// InventoryRow is one row of a correct inventory of the scenario site's
// sitemaps: a listed URL, its sitemap fields, and its robots.txt verdict.
type InventoryRow = testweb.InventoryRow

// ExpectedInventory is the oracle of an inventory of the scenario site's
// sitemaps by agent, in the order heed writes its rows; none for the
// generated site.
func (s *Web) ExpectedInventory(agent string) []InventoryRow {
	return s.web.ExpectedInventory(agent)
}

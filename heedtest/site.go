package heedtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
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

// Site is a website on loopback. It is safe for concurrent use; Close it
// when done (the New functions do it when the test ends).
type Site struct {
	web   *testweb.Site    // generated and scenario sites
	files *httptest.Server // ServeFiles
	mu    sync.Mutex
	pages map[string]int // ServeFiles: requests by URL, robots.txt not counted
}

// StartGenerated starts the generated site g describes.
func StartGenerated(g Generated) (*Site, error) {
	web, err := testweb.StartGenerated(g)
	if err != nil {
		return nil, err
	}
	return &Site{web: web}, nil
}

// StartScenario starts the scenario site. Its slow host answers after
// three seconds: crawl it with a timeout of a second or two.
func StartScenario() (*Site, error) {
	web, err := testweb.StartScenario()
	if err != nil {
		return nil, err
	}
	return &Site{web: web}, nil
}

// ServeFiles serves the files of dir on 127.0.0.1: dir/index.html is the
// root page, dir/robots.txt (when there is one) the robots.txt, and a
// missing file answers 404.
func ServeFiles(dir string) (*Site, error) {
	s := &Site{pages: map[string]int{}}
	fs := http.FileServer(http.Dir(dir))
	s.files = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			s.mu.Lock()
			s.pages[s.files.URL+r.URL.RequestURI()]++
			s.mu.Unlock()
		}
		fs.ServeHTTP(w, r)
	}))
	return s, nil
}

// NewGenerated starts a generated site for the test, closed when it ends.
func NewGenerated(tb testing.TB, g Generated) *Site {
	tb.Helper()
	return started(tb)(StartGenerated(g))
}

// NewScenario starts the scenario site for the test, closed when it ends.
func NewScenario(tb testing.TB) *Site {
	tb.Helper()
	return started(tb)(StartScenario())
}

// NewFiles serves dir for the test (see ServeFiles), closed when it ends.
func NewFiles(tb testing.TB, dir string) *Site {
	tb.Helper()
	return started(tb)(ServeFiles(dir))
}

func started(tb testing.TB) func(*Site, error) *Site {
	return func(s *Site, err error) *Site {
		tb.Helper()
		if err != nil {
			tb.Fatalf("heedtest: %v", err)
		}
		tb.Cleanup(s.Close)
		return s
	}
}

// Close stops the site's hosts. What it recorded stays readable.
func (s *Site) Close() {
	if s.web != nil {
		s.web.Close()
	} else {
		s.files.Close()
	}
}

// Seeds are the start URLs of a whole-site crawl.
func (s *Site) Seeds() []string {
	if s.web != nil {
		return s.web.Seeds()
	}
	return []string{s.files.URL + "/"}
}

// Domains are the site's hosts as a crawl's allowed domains.
func (s *Site) Domains() []string {
	if s.web != nil {
		return s.web.Domains()
	}
	return []string{"127.0.0.1"}
}

// CrawlArgs are the arguments of crawl that crawl the whole site: an
// --allow-domain for each of its domains, then its seeds.
func (s *Site) CrawlArgs() []string {
	var args []string
	for _, d := range s.Domains() {
		args = append(args, "--allow-domain", d)
	}
	return append(args, s.Seeds()...)
}

// URL is the absolute URL of path (with an optional query) on the site's
// first host: the generated site's first host, the scenario's main host.
func (s *Site) URL(path string) string {
	if s.web != nil {
		return s.web.Hosts()[0].URL(path)
	}
	return s.files.URL + path
}

// HostURL is the absolute URL of path on the scenario host called name
// (HostMain, HostMaps); "" when the site has no such host.
func (s *Site) HostURL(name, path string) string {
	if s.web == nil || s.web.Host(name) == nil {
		return ""
	}
	return s.web.Host(name).URL(path)
}

// Transport reaches every host of the site (the scenario's https host
// included) and nothing else: give it to crawler.WithTransport.
func (s *Site) Transport() http.RoundTripper {
	if s.web != nil {
		return s.web.Transport()
	}
	return s.files.Client().Transport
}

// PageRequests counts the requests the site answered by URL, robots.txt
// and sitemaps not included.
func (s *Site) PageRequests() map[string]int {
	if s.web != nil {
		return s.web.PageRequests()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.pages))
	for u, n := range s.pages {
		out[u] = n
	}
	return out
}

// Expected is the oracle of a whole-site crawl by agent; a site of files
// has none, and its Expected is empty.
func (s *Site) Expected(agent string) Expected {
	if s.web == nil {
		return Expected{Agent: agent}
	}
	return s.web.Expected(agent)
}

// InventoryRow is one row of a correct inventory of the scenario site's
// sitemaps: a listed URL, its sitemap fields, and its robots.txt verdict.
type InventoryRow = testweb.InventoryRow

// ExpectedInventory is the oracle of an inventory of the scenario site's
// sitemaps by agent, in the order heed writes its rows; none for other
// sites.
func (s *Site) ExpectedInventory(agent string) []InventoryRow {
	if s.web == nil {
		return nil
	}
	return s.web.ExpectedInventory(agent)
}

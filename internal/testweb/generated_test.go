package testweb

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/skiplog"
)

func smallGenerated(seed int64) Generated {
	return Generated{
		Hosts: 3, PagesPerHost: 30, PageBytes: 2048, LinksPerPage: 5,
		CrossHostFraction: 0.3, DisallowFraction: 0.2, CrawlDelay: 0.5, Seed: seed,
	}
}

func startGenerated(t *testing.T, g Generated, opts ...Option) *Site {
	t.Helper()
	s, err := StartGenerated(g, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// portable replaces each host's authority by its name, so that two runs
// (with different ports) can be compared.
func portable(s *Site, text string) string {
	for _, h := range s.Hosts() {
		text = strings.ReplaceAll(text, h.Authority, "{"+h.Name+"}")
	}
	return text
}

// snapshot fetches every URI of every host that a crawl could see, plus
// the oracle's verdicts, in a port-free form.
func snapshot(t *testing.T, s *Site) string {
	t.Helper()
	c := noFollow(s)
	var b strings.Builder
	for _, h := range s.Hosts() {
		for _, uri := range []string{"/robots.txt", "/", "/p/1", "/p/17", "/p/29", "/d/4"} {
			a := get(t, c, h.URL(uri))
			fmt.Fprintf(&b, "%s %s %d\n%s\n", h.Name, uri, a.status, a.body)
		}
	}
	e := s.Expected("HeedBot")
	fmt.Fprintf(&b, "fetched %d skipped %d\n", len(e.Fetched), len(e.Skipped))
	for u, sk := range e.Skipped {
		if !strings.Contains(u, "/d/") {
			fmt.Fprintf(&b, "odd skip %s %+v\n", u, sk)
		}
	}
	return portable(s, b.String())
}

func TestGeneratedDeterministic(t *testing.T) {
	a := snapshot(t, startGenerated(t, smallGenerated(7)))
	b := snapshot(t, startGenerated(t, smallGenerated(7)))
	if a != b {
		t.Fatal("two sites from the same seed differ")
	}
	if c := snapshot(t, startGenerated(t, smallGenerated(8))); c == a {
		t.Fatal("another seed gives the same site")
	}
}

func TestGeneratedSite(t *testing.T) {
	g := smallGenerated(3)
	s := startGenerated(t, g)
	c := noFollow(s)
	if len(s.Seeds()) != g.Hosts {
		t.Fatalf("%d seeds", len(s.Seeds()))
	}
	robots := get(t, c, s.Host("g1").RobotsURL).body
	if want := "# heed generated site, host g1\nUser-agent: *\nDisallow: /d/\nCrawl-delay: 0.5\n"; robots != want {
		t.Fatalf("robots.txt %q", robots)
	}
	for _, uri := range []string{"/", "/p/1", "/p/29", "/d/0", "/d/29"} {
		a := get(t, c, s.Host("g2").URL(uri))
		if a.status != 200 || len(a.body) != g.PageBytes || !strings.HasSuffix(a.body, "</html>\n") {
			t.Errorf("%s: %d, %d bytes", uri, a.status, len(a.body))
		}
	}
	for _, uri := range []string{"/p/0", "/p/30", "/p/01", "/p/x", "/d/30", "/x", "/p/-1"} {
		if a := get(t, c, s.Host("g0").URL(uri)); a.status != 404 {
			t.Errorf("%s: %d, want 404", uri, a.status)
		}
	}
	e := s.Expected("HeedBot")
	if len(e.Fetched) != g.Hosts*g.PagesPerHost {
		t.Errorf("%d pages reachable, want all %d", len(e.Fetched), g.Hosts*g.PagesPerHost)
	}
	if len(e.Skipped) == 0 {
		t.Error("no disallowed links with DisallowFraction 0.2")
	}
	for u, sk := range e.Skipped {
		if sk.Reason != skiplog.RobotsDisallow || sk.Line != 3 || sk.Rule != "Disallow: /d/" || line(robots, sk.Line) != sk.Rule || !strings.Contains(u, "/d/") {
			t.Errorf("%s: %+v", u, sk)
		}
		if e.Fetched[u] {
			t.Errorf("%s both fetched and skipped", u)
		}
	}
	// Every link of a fetched page is accounted for; some cross hosts.
	cross := 0
	for _, h := range s.Hosts() {
		for k := range g.PagesPerHost {
			u := h.URL(pageURI(k))
			for _, l := range hrefs(get(t, c, u).body) {
				abs, _ := parseCanonical(mustParse(u), l)
				if _, skipped := e.Skipped[abs]; !skipped && !e.Fetched[abs] {
					t.Fatalf("%s links %s, unaccounted", u, abs)
				}
				if !strings.HasPrefix(abs, h.Authority) {
					cross++
				}
			}
		}
	}
	if cross == 0 {
		t.Error("no cross-host links with CrossHostFraction 0.3")
	}
}

func TestGeneratedHundredHosts(t *testing.T) {
	g := Generated{Hosts: 100, PagesPerHost: 3, PageBytes: 512, LinksPerPage: 2, Seed: 1}
	s := startGenerated(t, g)
	ips := map[string]bool{}
	c := noFollow(s)
	for _, h := range s.Hosts() {
		ip, _, _ := net.SplitHostPort(h.Addr)
		ips[ip] = true
		if a := get(t, c, h.URL("/p/2")); a.status != 200 {
			t.Fatalf("%s: %d", h.Name, a.status)
		}
	}
	if len(ips) != 100 || !ips["127.0.0.2"] || !ips["127.0.0.101"] {
		t.Fatalf("%d distinct addresses", len(ips))
	}
	if e := s.Expected("HeedBot"); len(e.Fetched) != 300 || len(e.Skipped) != 0 {
		t.Fatalf("oracle: %d fetched, %d skipped", len(e.Fetched), len(e.Skipped))
	}
}

func TestGeneratedLatency(t *testing.T) {
	g := smallGenerated(1)
	g.Latency = 30 * time.Millisecond
	s := startGenerated(t, g)
	start := time.Now()
	get(t, noFollow(s), s.Host("g0").URL("/"))
	if el := time.Since(start); el < g.Latency {
		t.Errorf("answered after %v", el)
	}
}

func TestGeneratedInvalid(t *testing.T) {
	for name, mod := range map[string]func(*Generated){
		"no hosts":         func(g *Generated) { g.Hosts = 0 },
		"too many hosts":   func(g *Generated) { g.Hosts = maxGeneratedHosts + 1 },
		"no pages":         func(g *Generated) { g.PagesPerHost = 0 },
		"negative bytes":   func(g *Generated) { g.PageBytes = -1 },
		"no links":         func(g *Generated) { g.LinksPerPage = 0 },
		"cross above 1":    func(g *Generated) { g.CrossHostFraction = 1.5 },
		"disallow NaN":     func(g *Generated) { g.DisallowFraction = nan() },
		"negative delay":   func(g *Generated) { g.CrawlDelay = -1 },
		"negative latency": func(g *Generated) { g.Latency = -time.Second },
	} {
		g := smallGenerated(1)
		mod(&g)
		if s, err := StartGenerated(g); !errors.Is(err, ErrInvalidGenerated) {
			if s != nil {
				s.Close()
			}
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func nan() float64 { zero := 0.0; return zero / zero }

package testweb

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRobotsStatuses(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	for _, tc := range []struct {
		host   string
		status int
	}{
		{HostMain, 200}, {HostDelay, 200}, {HostNoRobots, 404}, {HostForbidden, 403},
		{HostBroken, 500}, {HostBig, 200}, {HostNamed, 200}, {HostMerge, 200},
		{HostPortsA, 200}, {HostPortsB, 200}, {HostPortsTLS, 200}, {HostRedirects, 200},
		{HostRateLimit, 200}, {HostMaps, 200}, {HostFiles, 404},
		{HostRedir5, 301}, {HostRedir6, 301},
	} {
		t.Run(tc.host, func(t *testing.T) {
			h := s.Host(tc.host)
			for range 2 {
				if a := get(t, c, h.RobotsURL); a.status != tc.status {
					t.Fatalf("%s: status %d, want %d", h.RobotsURL, a.status, tc.status)
				}
			}
		})
	}
}

func TestFlakyRecoversAfterTwoFailures(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	h := s.Host(HostFlaky)
	var got []int
	for range FlakyFailures + 2 {
		got = append(got, get(t, c, h.RobotsURL).status)
	}
	if want := []int{503, 503, 200, 200}; !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	var served []string
	for _, hit := range s.HitsFor(h.Authority) {
		served = append(served, hit.Served)
	}
	if want := []string{"unavailable", "unavailable", "recovered", "recovered"}; !slices.Equal(served, want) {
		t.Fatalf("served %v, want %v", served, want)
	}
	if body := get(t, c, h.RobotsURL).body; line(body, 2) != "Disallow: /nope/" {
		t.Fatalf("recovered body %q", body)
	}
}

func TestChangingRobotsSwitchesToV2(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	h := s.Host(HostChanging)
	bodies := []string{get(t, c, h.RobotsURL).body, get(t, c, h.RobotsURL).body, get(t, c, h.RobotsURL).body}
	if !strings.Contains(bodies[0], "Disallow: /v1-blocked/") || strings.Contains(bodies[0], "v2") {
		t.Errorf("first fetch %q, want version 1", bodies[0])
	}
	for _, b := range bodies[1:] {
		if !strings.Contains(b, "Disallow: /v2-blocked/") || strings.Contains(b, "v1-blocked") {
			t.Errorf("later fetch %q, want version 2", b)
		}
	}
	var served []string
	for _, hit := range s.HitsFor(h.Authority) {
		served = append(served, hit.Served)
	}
	if want := []string{"v1", "v2", "v2"}; !slices.Equal(served, want) {
		t.Fatalf("served %v, want %v", served, want)
	}
}

func TestSlowRobotsOutlastsTimeout(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := startScenario(t, WithTimeout(delay))
	h := s.Host(HostSlow)

	short := s.Client()
	short.Timeout = 50 * time.Millisecond
	if _, err := short.Get(h.RobotsURL); err == nil {
		t.Fatal("a client with a 50 ms timeout got an answer")
	}
	a := get(t, noFollow(s), h.RobotsURL)
	if a.status != 200 {
		t.Fatalf("patient client: status %d", a.status)
	}
	// The abandoned request is recorded as such once its handler wakes.
	if err := waitFor(5*time.Second, func() bool {
		hits := s.HitsFor(h.Authority)
		return len(hits) == 2 && hits[0].Served == "abandoned"
	}); err != nil {
		t.Fatalf("hits %+v", s.HitsFor(h.Authority))
	}
	for _, hit := range s.HitsFor(h.Authority) {
		if hit.Done.Sub(hit.Time) < delay/2 && hit.Served != "abandoned" {
			t.Errorf("hit %+v answered before the delay", hit)
		}
	}
}

func TestRobotsRedirectChains(t *testing.T) {
	s := startScenario(t)
	for _, tc := range []struct {
		host      string
		redirects int
	}{{HostRedir5, RobotsRedirectLimit}, {HostRedir6, RobotsRedirectLimit + 1}} {
		t.Run(tc.host, func(t *testing.T) {
			h := s.Host(tc.host)
			codes, final := follow(t, s, h.RobotsURL, 10)
			if len(codes) != tc.redirects {
				t.Fatalf("%d redirects (%v), want %d", len(codes), codes, tc.redirects)
			}
			for _, code := range []int{301, 302, 307, 308} {
				if !slices.Contains(codes, code) {
					t.Errorf("codes %v lack %d", codes, code)
				}
			}
			if final.status != 200 || line(final.body, 3) != "Disallow: /blocked/" {
				t.Fatalf("final answer %d %q", final.status, final.body)
			}
			// The last hops and the file live on the files host.
			if n := len(s.HitsFor(s.Host(HostFiles).Authority)); n < 2 {
				t.Errorf("files host served %d requests, want the last hops", n)
			}
		})
	}
}

func TestBigRobotsLayout(t *testing.T) {
	s := startScenario(t)
	body := get(t, noFollow(s), s.Host(HostBig).RobotsURL).body
	if n := len(body); n < 590*1024 || n > 610*1024 {
		t.Errorf("size %d, want about 600 KiB", n)
	}
	early := strings.Index(body, "Disallow: /early/")
	late := strings.Index(body, "\nDisallow: /late/\n")
	if early < 0 || early > 100 {
		t.Errorf("/early/ at byte %d, want near the top", early)
	}
	if late+1 <= RobotsParseLimit {
		t.Errorf("/late/ starts at byte %d, want past %d", late+1, RobotsParseLimit)
	}
	if strings.Count(body, "Disallow:") != 2 || !strings.HasPrefix(body, "User-agent: *\n") {
		t.Errorf("unexpected rules in the big file")
	}
}

func TestPageRedirects(t *testing.T) {
	s := startScenario(t)
	r := s.Host(HostRedirects)
	codes, final := follow(t, s, r.URL("/chain/1"), 10)
	if !slices.Equal(codes, []int{302, 301, 307}) || final.status != 200 {
		t.Errorf("chain: %v then %d", codes, final.status)
	}
	codes, final = follow(t, s, r.URL("/long/0"), 20)
	if len(codes) != longChain || final.status != 200 {
		t.Errorf("long chain: %d redirects then %d", len(codes), final.status)
	}
	c := noFollow(s)
	for _, tc := range []struct{ uri, location string }{
		{"/loop/a", "/loop/b"}, {"/loop/b", "/loop/a"}, {"/to-never", "/never/x"},
		{"/to-named", s.Host(HostNamed).URL("/nope/from-redirect")},
		{"/to-main", s.Host(HostMain).URL("/landing/from-redirects")},
	} {
		if a := get(t, c, r.URL(tc.uri)); a.location != tc.location {
			t.Errorf("%s: Location %q, want %q", tc.uri, a.location, tc.location)
		}
	}
}

func TestRateLimitedPagesSucceedOnRetry(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	h := s.Host(HostRateLimit)
	for uri, first := range map[string]int{"/once-429": 429, "/once-503": 503} {
		a := get(t, c, h.URL(uri))
		if a.status != first || a.header.Get("Retry-After") != "1" {
			t.Errorf("%s: first answer %d Retry-After %q", uri, a.status, a.header.Get("Retry-After"))
		}
		for range 2 {
			if a := get(t, c, h.URL(uri)); a.status != 200 || !strings.Contains(a.body, "<title>") {
				t.Errorf("%s: later answer %d", uri, a.status)
			}
		}
	}
}

func TestTLSHostAndSharedAddress(t *testing.T) {
	s := startScenario(t)
	tlsHost := s.Host(HostPortsTLS)
	if !tlsHost.TLS || !strings.HasPrefix(tlsHost.Authority, "https://") {
		t.Fatalf("ports-tls: %+v", tlsHost)
	}
	if a := get(t, noFollow(s), tlsHost.URL("/")); a.status != 200 {
		t.Fatalf("https root: %d", a.status)
	}
	plain := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Second}
	defer plain.CloseIdleConnections()
	if _, err := plain.Get(tlsHost.URL("/")); err == nil {
		t.Error("a client without the site's pool trusted the https host")
	}
	ips := map[string]bool{}
	auths := map[string]bool{}
	for _, name := range []string{HostPortsA, HostPortsB, HostPortsTLS} {
		ip, _, _ := net.SplitHostPort(s.Host(name).Addr)
		ips[ip] = true
		auths[s.Host(name).Authority] = true
	}
	if len(ips) != 1 || len(auths) != 3 {
		t.Fatalf("ports hosts: %d addresses, %d authorities; want 1 and 3", len(ips), len(auths))
	}
	// Every other host has an address of its own.
	seen := map[string]string{}
	for _, h := range s.Hosts() {
		ip, _, _ := net.SplitHostPort(h.Addr)
		if other, dup := seen[ip]; dup && !strings.HasPrefix(h.Name, "ports-") {
			t.Errorf("%s shares %s with %s", h.Name, ip, other)
		}
		seen[ip] = h.Name
	}
}

func TestSitemapsServed(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	m := s.Host(HostMaps)
	robots := get(t, c, m.RobotsURL).body
	for _, want := range []string{"Sitemap: " + m.URL("/sitemap_index.xml"), "Sitemap: " + m.URL("/sitemaps/list.txt")} {
		if !strings.Contains(robots, want+"\n") {
			t.Errorf("maps robots.txt lacks %q", want)
		}
	}
	index := get(t, c, m.URL("/sitemap_index.xml"))
	for _, want := range []string{"<sitemapindex", m.URL("/sitemaps/pages.xml"), m.URL("/sitemaps/more.xml.gz"), m.URL("/private/sitemap.xml")} {
		if !strings.Contains(index.body, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	gz := get(t, c, m.URL("/sitemaps/more.xml.gz"))
	if gz.header.Get("Content-Type") != ctypeGzip || gz.header.Get("Content-Encoding") != "" {
		t.Errorf("gzip sitemap headers %v", gz.header)
	}
	zr, err := gzip.NewReader(bytes.NewReader([]byte(gz.body)))
	if err != nil {
		t.Fatal(err)
	}
	xmlBody, err := io.ReadAll(zr)
	if err != nil || !strings.Contains(string(xmlBody), "<urlset") || !strings.Contains(string(xmlBody), m.URL("/page/6")) {
		t.Errorf("gunzipped sitemap: %v %q", err, xmlBody)
	}
	if txt := get(t, c, m.URL("/sitemaps/list.txt")); !strings.HasPrefix(txt.body, m.URL("/page/9")+"\n") {
		t.Errorf("text sitemap %q", txt.body)
	}
	mainMap := get(t, c, s.Host(HostMain).URL("/sitemap.xml")).body
	if !strings.Contains(mainMap, "/search?z=1&amp;q=x") {
		t.Errorf("main sitemap does not escape &: %q", mainMap)
	}
	if a := get(t, c, s.Host(HostNoRobots).URL("/sitemap.xml")); a.status != 200 {
		t.Errorf("norobots /sitemap.xml: %d", a.status)
	}
	if a := get(t, c, s.Host(HostDelay).URL("/sitemap.xml")); a.status != 404 {
		t.Errorf("delay /sitemap.xml: %d, want 404", a.status)
	}
}

func TestPagesAreHTMLWithEscapedLinks(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	a := get(t, c, s.Host(HostMain).URL("/rules"))
	if a.status != 200 || a.header.Get("Content-Type") != ctypeHTML {
		t.Fatalf("/rules: %d %q", a.status, a.header.Get("Content-Type"))
	}
	for _, want := range []string{"<title>Rules</title>", `href="/search?z=1&amp;q=x"`, `href="/caf%C3%A9/menu"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("/rules lacks %s", want)
		}
	}
	if a := get(t, c, s.Host(HostMain).URL("/missing")); a.status != 404 {
		t.Errorf("/missing: %d", a.status)
	}
	// Queries are served exactly as linked: re-ordering them is a 404.
	if a := get(t, c, s.Host(HostMain).URL("/search?q=x&z=1")); a.status != 404 {
		t.Errorf("re-ordered query: %d, want 404", a.status)
	}
	resp, err := c.Post(s.Host(HostMain).URL("/"), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

func TestSingleAddress(t *testing.T) {
	s := startScenario(t, WithSingleAddress("127.0.0.1"))
	if d := s.Domains(); len(d) != 1 || d[0] != "127.0.0.1" {
		t.Fatalf("domains %v", d)
	}
	if a := get(t, noFollow(s), s.Host(HostPortsTLS).URL("/")); a.status != 200 {
		t.Fatalf("https on 127.0.0.1: %d", a.status)
	}
	if len(s.Expected("HeedBot").Fetched) == 0 {
		t.Fatal("empty oracle")
	}
}

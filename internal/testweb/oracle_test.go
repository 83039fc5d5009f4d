package testweb

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/skiplog"
)

// agents the oracle is documented to be right for.
var oracleAgents = []string{"HeedBot", "heedbot", "OtherBot", "alphabot"}

// TestExpectedHeedBot pins the outcomes the scenario was written for.
func TestExpectedHeedBot(t *testing.T) {
	s := startScenario(t)
	e := s.Expected("HeedBot")
	type want struct {
		host, uri string
		reason    skiplog.Reason // "" for fetched
		line      int
	}
	const fetched = skiplog.Reason("")
	for _, w := range []want{
		{HostMain, "/", fetched, 0},
		{HostMain, "/docs/report.pdf", skiplog.RobotsDisallow, 13},
		{HostMain, "/docs/report.pdf.html", fetched, 0},
		{HostMain, "/docs/report.pdf?download=1", fetched, 0},
		{HostMain, "/search?q=x", skiplog.RobotsDisallow, 15},
		{HostMain, "/search?z=1&q=x", fetched, 0},
		{HostMain, "/item?sessionid=1", skiplog.RobotsDisallow, 14},
		{HostMain, "/item?id=1&sessionid=2", fetched, 0},
		{HostMain, "/private/secret", skiplog.RobotsDisallow, 11},
		{HostMain, "/private/open", fetched, 0},
		{HostMain, "/Private/notes", fetched, 0},
		{HostMain, "/cart", skiplog.RobotsDisallow, 16},
		{HostMain, "/cart/help", fetched, 0},
		{HostMain, "/cart/help?lang=en", skiplog.RobotsDisallow, 16},
		{HostMain, "/cart/checkout", skiplog.RobotsDisallow, 16},
		{HostMain, "/cartoons", skiplog.RobotsDisallow, 16},
		{HostMain, "/heedbot-only/welcome", fetched, 0},
		{HostMain, "/heedbot-only/next", fetched, 0},
		{HostMain, "/~joe/home", skiplog.RobotsDisallow, 18},
		{HostMain, "/caf%C3%A9/menu", skiplog.RobotsDisallow, 19},
		{HostMain, "/missing", fetched, 0},
		{HostMain, "/landing/from-redirects", fetched, 0},
		{HostDelay, "/chain/4", fetched, 0},
		{HostNoRobots, "/d", fetched, 0},
		{HostForbidden, "/b", fetched, 0},
		{HostBroken, "/", skiplog.RobotsUnreachable, 0},
		{HostBroken, "/d", skiplog.RobotsUnreachable, 0},
		{HostFlaky, "/a", fetched, 0},
		{HostFlaky, "/nope/x", skiplog.RobotsDisallow, 2},
		{HostSlow, "/", skiplog.RobotsUnreachable, 0},
		{HostSlow, "/b", skiplog.RobotsUnreachable, 0},
		{HostRedir5, "/blocked/x", skiplog.RobotsDisallow, 3},
		{HostRedir5, "/a", fetched, 0},
		{HostRedir6, "/blocked/x", fetched, 0},
		{HostBig, "/early/x", skiplog.RobotsDisallow, 2},
		{HostBig, "/late/x", fetched, 0},
		{HostNamed, "/a", fetched, 0},
		{HostNamed, "/nope/x", skiplog.RobotsDisallow, 5},
		{HostNamed, "/nope/from-redirect", skiplog.RedirectBlocked, 5},
		{HostMerge, "/shared/x", skiplog.RobotsDisallow, 6},
		{HostMerge, "/star/x", fetched, 0},
		{HostPortsA, "/x/1", skiplog.RobotsDisallow, 2},
		{HostPortsA, "/y/1", fetched, 0},
		{HostPortsB, "/x/1", fetched, 0},
		{HostPortsTLS, "/y/1", skiplog.RobotsDisallow, 2},
		{HostPortsTLS, "/x/1", fetched, 0},
		{HostRedirects, "/chain/1", fetched, 0},
		{HostRedirects, "/chain/3", fetched, 0},
		{HostRedirects, "/chain/end", fetched, 0},
		{HostRedirects, "/never/x", skiplog.RedirectBlocked, 2},
		{HostRedirects, "/long/10", fetched, 0},
		{HostRedirects, "/long/11", skiplog.RedirectLimit, 0},
		{HostRateLimit, "/once-429", fetched, 0},
		{HostRateLimit, "/once-503", fetched, 0},
		{HostChanging, "/v1-blocked/3", skiplog.RobotsDisallow, 3},
		{HostChanging, "/v2-blocked/3", fetched, 0},
		{HostMaps, "/drafts/1", skiplog.RobotsDisallow, 2},
	} {
		u := s.Host(w.host).URL(w.uri)
		sk, skipped := e.Skipped[u]
		switch {
		case w.reason == fetched && (!e.Fetched[u] || skipped):
			t.Errorf("%s %s: want fetched, got fetched=%v skip=%+v", w.host, w.uri, e.Fetched[u], sk)
		case w.reason != fetched && (sk.Reason != w.reason || sk.Line != w.line || e.Fetched[u]):
			t.Errorf("%s %s: want %s line %d, got fetched=%v skip=%+v", w.host, w.uri, w.reason, w.line, e.Fetched[u], sk)
		}
	}
	if sk := e.Skipped[OffsiteURL]; sk.Reason != skiplog.Offsite {
		t.Errorf("offsite link: %+v", sk)
	}
	loop := s.Host(HostRedirects).URL("/loop/a")
	if sk := e.Skipped[loop]; sk.Reason != skiplog.RedirectLoop || sk.Via != s.Host(HostRedirects).URL("/loop/b") {
		t.Errorf("loop: %+v", sk)
	}
	if sk := e.Skipped[s.Host(HostMerge).URL("/shared/x")]; !slices.Equal(sk.Group, []string{"HeedBot", "alphabot"}) || !slices.Equal(sk.GroupLines, []int{3, 5}) {
		t.Errorf("merged group: %+v", sk)
	}
	if sk := e.Skipped[s.Host(HostRedir5).URL("/blocked/x")]; sk.RobotsURL != s.Host(HostRedir5).RobotsURL {
		t.Errorf("redir5 robots URL %q", sk.RobotsURL)
	}
	if sk := e.Skipped[s.Host(HostBroken).URL("/")]; sk.RobotsStatus != 500 {
		t.Errorf("broken: %+v", sk)
	}
	// Unreachable hosts: only what was linked is known.
	for _, name := range []string{HostBroken, HostSlow} {
		for u := range e.Fetched {
			if strings.HasPrefix(u, s.Host(name).Authority) {
				t.Errorf("%s expected fetched", u)
			}
		}
	}
	// The redirect limit is a parameter.
	if e12 := s.Expected("HeedBot", RedirectLimit(12)); !e12.Fetched[s.Host(HostRedirects).URL("/long/12")] {
		t.Error("with a limit of 12 the long chain should end fetched")
	}
}

// TestExpectedOtherAgents checks the cases where the group changes.
func TestExpectedOtherAgents(t *testing.T) {
	s := startScenario(t)
	other := s.Expected("OtherBot")
	main := s.Host(HostMain)
	if sk := other.Skipped[main.URL("/heedbot-only/welcome")]; sk.Line != 6 || !slices.Equal(sk.Group, []string{"*"}) {
		t.Errorf("OtherBot /heedbot-only/welcome: %+v", sk)
	}
	if !other.Fetched[main.URL("/docs/report.pdf")] {
		t.Error(`OtherBot is not bound by HeedBot's "/*.pdf$"`)
	}
	if _, found := other.Skipped[main.URL("/heedbot-only/next")]; found || other.Fetched[main.URL("/heedbot-only/next")] {
		t.Error("OtherBot cannot discover /heedbot-only/next")
	}
	if sk := other.Skipped[s.Host(HostNamed).URL("/")]; sk.Line != 2 {
		t.Errorf(`OtherBot on named: %+v, want "Disallow: /"`, sk)
	}
	if sk := other.Skipped[s.Host(HostMerge).URL("/star/x")]; sk.Line != 9 {
		t.Errorf("OtherBot on merge: %+v", sk)
	}
	if sk := s.Expected("alphabot").Skipped[s.Host(HostMerge).URL("/shared/x")]; sk.Line != 6 {
		t.Errorf("alphabot on merge: %+v", sk)
	}
	lower := s.Expected("heedbot")
	heed := s.Expected("HeedBot")
	if len(lower.Fetched) != len(heed.Fetched) || len(lower.Skipped) != len(heed.Skipped) {
		t.Error("the product token must match case-insensitively")
	}
}

// TestOracleConsistent checks every agent's sets against each other and
// against what the site serves.
func TestOracleConsistent(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	bodies := map[string]string{}
	for _, h := range s.Hosts() {
		if h.Name != HostSlow && h.Name != HostFlaky && h.Name != HostChanging && h.Name != HostBroken {
			bodies[h.RobotsURL] = robotsBody(t, s, h)
		}
	}
	// Served through a fresh counter-free path: the declared bodies.
	bodies[s.Host(HostFlaky).RobotsURL] = string(s.Host(HostFlaky).content.robotsFor("").file.body())
	bodies[s.Host(HostChanging).RobotsURL] = string(s.Host(HostChanging).content.robotsFor("").file.body())

	for _, agent := range oracleAgents {
		e := s.Expected(agent)
		if len(e.Fetched) < 100 || len(e.Skipped) < 10 {
			t.Fatalf("%s: only %d fetched, %d skipped", agent, len(e.Fetched), len(e.Skipped))
		}
		for u, sk := range e.Skipped {
			if e.Fetched[u] && sk.Reason != skiplog.RedirectLoop {
				t.Errorf("%s: %s both fetched and skipped (%s)", agent, u, sk.Reason)
			}
			if !slices.Contains(skiplog.Reasons, sk.Reason) {
				t.Errorf("%s: %s: unknown reason %q", agent, u, sk.Reason)
			}
			switch sk.Reason {
			case skiplog.RobotsDisallow, skiplog.RedirectBlocked:
				body, ok := bodies[sk.RobotsURL]
				if !ok {
					t.Errorf("%s: %s: no body for %s", agent, u, sk.RobotsURL)
					continue
				}
				if sk.Line <= 0 || line(body, sk.Line) != sk.Rule {
					t.Errorf("%s: %s: line %d is %q, rule %q", agent, u, sk.Line, line(body, sk.Line), sk.Rule)
				}
				if len(sk.Group) == 0 || len(sk.Group) != len(sk.GroupLines) {
					t.Errorf("%s: %s: group %v lines %v", agent, u, sk.Group, sk.GroupLines)
				}
				for i, gl := range sk.GroupLines {
					if line(body, gl) != "User-agent: "+sk.Group[i] || gl >= sk.Line {
						t.Errorf("%s: %s: group line %d is %q", agent, u, gl, line(body, gl))
					}
				}
			case skiplog.RobotsUnreachable:
				if sk.Line != 0 || sk.RobotsURL == "" {
					t.Errorf("%s: %s: %+v", agent, u, sk)
				}
			}
			if strings.HasPrefix(string(sk.Reason), "redirect-") && !e.Fetched[sk.Via] {
				t.Errorf("%s: %s: via %q was not fetched", agent, u, sk.Via)
			}
		}
	}

	// Every URL HeedBot fetches answers what the oracle says, and every
	// link of a fetched page is accounted for.
	e := s.Expected("HeedBot")
	for u := range e.Fetched {
		a := get(t, c, u)
		if a.status == 429 || a.status == 503 {
			a = get(t, c, u) // the rate-limited pages succeed on retry
		}
		if a.status != e.Status[u] {
			t.Errorf("%s: served %d, oracle says %d", u, a.status, e.Status[u])
		}
		if a.status == http.StatusOK && strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
			for _, l := range hrefs(a.body) {
				abs, ok := parseCanonical(mustParse(u), l)
				if !ok {
					t.Errorf("%s: bad link %q", u, l)
					continue
				}
				if _, skipped := e.Skipped[abs]; !skipped && !e.Fetched[abs] {
					t.Errorf("%s links %s, which the oracle does not account for", u, abs)
				}
			}
		}
	}
}

// hrefs extracts the href values of a page rendered by testweb.
func hrefs(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `href="`)[1:] {
		v, _, _ := strings.Cut(part, `"`)
		out = append(out, strings.ReplaceAll(v, "&amp;", "&"))
	}
	return out
}

func TestExpectedSitemaps(t *testing.T) {
	s := startScenario(t)
	for _, agent := range oracleAgents {
		se := s.ExpectedSitemaps(agent)
		e := s.Expected(agent)
		for _, row := range se.Rows {
			sk, skipped := e.Skipped[row.URL]
			if row.Allowed == skipped || (!row.Allowed && (sk.Line != row.Line || sk.Rule != row.Rule)) {
				t.Errorf("%s: row %+v disagrees with Expected (skip %+v)", agent, row, sk)
			}
			if row.Allowed != e.Fetched[row.URL] {
				t.Errorf("%s: listed URL %s is not linked", agent, row.URL)
			}
		}
		for u := range se.Skipped {
			if se.Fetched[u] {
				t.Errorf("%s: sitemap %s both read and skipped", agent, u)
			}
		}
	}
	se := s.ExpectedSitemaps("HeedBot")
	m := s.Host(HostMaps)
	for _, u := range []string{"/sitemap_index.xml", "/sitemaps/pages.xml", "/sitemaps/more.xml.gz", "/sitemaps/list.txt"} {
		if !se.Fetched[m.URL(u)] {
			t.Errorf("sitemap %s not read", u)
		}
	}
	if sk := se.Skipped[m.URL("/private/sitemap.xml")]; sk.Reason != skiplog.RobotsDisallow || sk.Line != 3 {
		t.Errorf("private sitemap: %+v", sk)
	}
	if !se.Fetched[s.Host(HostNoRobots).URL("/sitemap.xml")] {
		t.Error("the /sitemap.xml fallback of norobots is not read")
	}
	var drafts, flagged int
	for _, row := range se.Rows {
		if strings.Contains(row.URL, "/drafts/") {
			drafts++
		}
		if !row.Allowed {
			flagged++
		}
		if row.URL == m.URL("/page/secret") {
			t.Error("the secret page leaked into the inventory")
		}
	}
	if drafts != 3 || flagged != 6 {
		t.Errorf("%d draft rows, %d flagged rows; want 3 and 6", drafts, flagged)
	}
	if rows := s.ExpectedInventory("HeedBot"); len(rows) != len(se.Rows) || rows[0].LastMod != "2025-03-01" {
		t.Errorf("inventory: %d rows, first %+v", len(rows), rows[0])
	}
}

// TestPageRequestsMatchExpected replays the oracle's crawl by hand (every
// robots.txt with its redirects, every sitemap, every fetched URL once)
// and checks that PageRequests sees exactly the fetched pages.
func TestPageRequestsMatchExpected(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	for _, h := range s.Hosts() {
		if h.Name != HostSlow {
			follow(t, s, h.RobotsURL, 10)
		}
	}
	for u := range s.ExpectedSitemaps("HeedBot").Fetched {
		get(t, c, u)
	}
	get(t, c, s.Host(HostDelay).URL("/sitemap.xml")) // a fallback probe
	e := s.Expected("HeedBot")
	for u := range e.Fetched {
		get(t, c, u)
	}
	got := s.PageRequests()
	for u := range e.Fetched {
		if got[u] != 1 {
			t.Errorf("%s requested %d times", u, got[u])
		}
	}
	for u := range got {
		if !e.Fetched[u] {
			t.Errorf("%s counted as a page but not expected fetched", u)
		}
	}
}

// TestDuplicateLinksCollapse checks that the many spellings of main's
// /about are one URL to the oracle.
func TestDuplicateLinksCollapse(t *testing.T) {
	s := startScenario(t)
	m := s.Host(HostMain)
	var spellings []string
	for _, p := range m.content.(*scenarioHost).pages {
		for _, l := range p.links {
			if strings.Contains(l, "about") && !slices.Contains(spellings, l) {
				spellings = append(spellings, l)
			}
		}
	}
	if len(spellings) < 5 {
		t.Fatalf("only %d spellings of /about: %v", len(spellings), spellings)
	}
	n := 0
	for u := range s.Expected("HeedBot").Fetched {
		if strings.Contains(u, "about") {
			n++
			if u != m.URL("/about") {
				t.Errorf("unexpected key %s", u)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d keys for /about", n)
	}
}

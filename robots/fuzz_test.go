package robots

import (
	"net/url"
	"testing"
	"time"
)

// FuzzRobots runs Parse, Group, Decide, DecideURL, Lint and the sitemap
// helpers on arbitrary input. Besides not panicking and finishing quickly,
// every verdict must equal the one a brute-force oracle (every rule of the
// group against the quadratic reference matcher) computes.
//
//	go test -run=^$ -fuzz=FuzzRobots -fuzztime=5m ./robots/
func FuzzRobots(f *testing.F) {
	seeds := []struct{ body, token, path string }{
		{"User-agent: *\nDisallow: /\n", "FooBot", "/x"},
		{"user-agent FooBot\ndisallow /\nallow /x$\n", "foobot", "/x"},
		{"\xEF\xBB\xBFUser-agent: a\r\nDisallow: /*.gif$\rAllow: /a%2fb\n", "a", "/a%2Fb.gif"},
		{"User-agent: alphabot\nSitemap: /s.xml\n\nUser-agent: betabot\nDisallow: /\nCrawl-delay: 0.5\n", "alphabot", "/?q"},
		{"User-agent: *\nDisallow: /" + string(make([]byte, 40)) + "**$\n", "", ""},
		{"Disallow: /early\nuseragent: x\ndissallow: private*\nCrawl-delay: NaN\n", "x", "/private/ツ"},
		{"User-agent: *\nAllow: /$\nDisallow: /a$b\nDisallow: %\n", "Foo Bar", "/a$b"},
		{"User-agent: MJ12bot\nContent-Usage: train-ai=n\nContent-Usage: /a/ train-ai=y, search=\"n\"\nContent-Usage: /a/ Train-AI\n", "MJ12bot", "/a/b"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.body), s.token, s.path)
	}
	f.Fuzz(func(t *testing.T, body []byte, token, path string) {
		// A busy machine can stall any single run for a second; an input
		// that is really slow is slow every time.
		var d time.Duration
		for try := 0; try < 3; try++ {
			start := time.Now()
			checkOne(t, body, token, path)
			if d = time.Since(start); d <= time.Second {
				return
			}
		}
		t.Fatalf("one input took over a second three times, last %v (%d-byte body, %d-byte path)", d, len(body), len(path))
	})
}

func checkOne(t *testing.T, body []byte, token, path string) {
	f := Parse(body)
	r := f.Report()
	for _, s := range r.Skipped {
		if s.Line < 1 || s.Line > r.Lines {
			t.Fatalf("skipped line %d outside 1..%d", s.Line, r.Lines)
		}
	}
	for i := 1; i < len(f.rules); i++ {
		if f.rules[i].Line <= f.rules[i-1].Line {
			t.Fatalf("rule lines not increasing: %d then %d", f.rules[i-1].Line, f.rules[i].Line)
		}
	}
	g := f.Group(token)
	v := g.Decide(path)
	// Content-Usage: the deciding rules match the path, are all equally
	// long, and none applies to a URL that may not be crawled.
	uv := g.Usage(path)
	if uv.Crawlable != v.Allowed || !uv.Crawlable && len(uv.Rules) > 0 {
		t.Fatalf("Usage(%q) crawlable=%v with %d rules; Decide says %v", path, uv.Crawlable, len(uv.Rules), v)
	}
	for _, r := range uv.Rules {
		if len(r.Pattern) != len(uv.Rules[0].Pattern) {
			t.Fatalf("Usage(%q): rules of different lengths %+v", path, uv.Rules)
		}
	}
	if want := oracle(g, path); want != nil && (v.Allowed != want.allowed || v.Rule != want.rule || v.Implicit != want.implicit) {
		t.Fatalf("Decide(%q) = %v; oracle: allowed=%v rule=%v implicit=%v", path, v, want.allowed, want.rule, want.implicit)
	}
	if v.Group == nil {
		t.Fatal("verdict without group")
	}
	_ = v.String()
	if u, err := url.Parse(path); err == nil {
		_ = g.DecideURL(u)
	}
	_ = RequestTarget(path)
	_, _ = g.CrawlDelay()
	_ = f.Sitemaps()
	_ = f.ResolveSitemaps(&url.URL{Scheme: "https", Host: "example.com", Path: "/robots.txt"})
	for _, fd := range Lint(body) {
		if fd.Line < 1 || fd.Line > r.Lines+1 || fd.Code == "" || fd.Message == "" {
			t.Fatalf("bad finding %+v (lines %d)", fd, r.Lines)
		}
	}
}

type oracleVerdict struct {
	allowed, implicit bool
	rule              *Rule
}

// oracle decides by brute force; nil when the input is too large for the
// quadratic reference matcher.
func oracle(g *Group, path string) *oracleVerdict {
	p := string(appendNormalised(nil, path))
	if path == "" || path[0] == '?' {
		p = "/" + p
	}
	if isRobotsTxt(p) {
		return &oracleVerdict{allowed: true, implicit: true}
	}
	work := 0
	for _, r := range g.rules {
		work += len(r.Pattern) * (len(p) + 1)
	}
	if work > 4<<20 {
		return nil
	}
	var best *Rule
	for _, r := range g.rules {
		if !refMatch(r.Pattern, p) {
			continue
		}
		switch {
		case best == nil, len(r.Pattern) > len(best.Pattern):
			best = r
		case len(r.Pattern) == len(best.Pattern) && r.Allow && !best.Allow:
			best = r
		}
	}
	if best == nil {
		return &oracleVerdict{allowed: true}
	}
	return &oracleVerdict{allowed: best.Allow, rule: best}
}

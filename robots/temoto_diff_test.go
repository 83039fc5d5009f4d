package robots_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/robots"
	"github.com/temoto/robotstxt"
)

// Differential tests against github.com/temoto/robotstxt v1.1.2. Where RFC
// 9309 makes both answer the same, they must; where they differ, the case
// is listed with the temoto behaviour responsible, so that the list is a
// record of that library's known non-conformances (as of v1.1.2).

const (
	whyPrefixAgent   = "temoto selects a group whose name is a prefix of the agent (Scout matches Scoutbot); RFC 9309 §2.2.1 matches the whole token"
	whyAgentVersion  = "temoto keeps \"foobot/1.2\" as the group name, so the token FooBot never selects it; heed reads the product token FooBot"
	whyTie           = "on equal length temoto keeps the first rule in file order; RFC 9309 §2.2.2 says Allow SHOULD win"
	whyWildLength    = "temoto ranks a wildcard rule by the length of its regexp, not of the pattern"
	whyUnanchored    = "temoto's wildcard regexps are not anchored at the start, so /private*.html matches /x/private.html"
	whyDollarInside  = "temoto treats $ anywhere as an end anchor; heed, like Google, reads a $ that is not last as a literal"
	whyPercent       = "temoto compares octets without RFC 9309 §2.2.2 normalisation (percent-encoded unreserved characters, hex case, UTF-8)"
	whyRobotsTxt     = "temoto does not implicitly allow /robots.txt (RFC 9309 §2.2.2)"
	whyCrawlDelayRun = "temoto ends a run of user-agent lines at Crawl-delay; heed, like Google, reads only Allow/Disallow as ending it (Crawl-delay is outside RFC 9309)"
	whySlashAdded    = "temoto adds a missing leading \"/\" to a pattern; heed, like Google's open-source matcher, compares it as written, so it matches no path"
	whyEarlyRule     = "temoto refuses the whole file (FromBytes returns an error) when a rule comes before any user-agent line; RFC 9309 ignores such rules"
)

func TestDifferentialTemoto(t *testing.T) {
	cases := []struct {
		body, agent, path string
		heed              bool   // heed's answer
		why               string // empty: temoto must agree
	}{
		{"User-agent: *\nDisallow: /a\n", "x", "/a/b", false, ""},
		{"User-agent: *\nDisallow: /a\nAllow: /a/b\n", "x", "/a/b/c", true, ""},
		{"User-agent: *\nDisallow: /\nUser-agent: FooBot\nAllow: /\n", "FooBot", "/x", true, ""},
		{"User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "foobot", "/x/1", true, ""},
		{"User-agent: FooBot\nDisallow: /\n", "BarBot", "/x", true, ""},
		{"User-agent: foo\nDisallow: /\nUser-agent: foo\nAllow: /x\n", "foo", "/x", true, ""},
		{"User-agent: a\nSitemap: /s\nUser-agent: b\nDisallow: /\n", "a", "/x", false, ""},
		{"User-agent: *\nDisallow: /fish*.php\n", "x", "/fishy.php", false, ""},
		{"User-agent: *\nDisallow: /*.php$\n", "x", "/a.php?x", true, ""},
		{"User-agent: *\nDisallow: /*.php$\n", "x", "/a.php", false, ""},
		{"User-agent: *\nDisallow: /page\nAllow: /*.html\n", "x", "/page.html", true, ""},
		{"user-agent FooBot\ndisallow /\n", "FooBot", "/x", false, ""},
		{"User-agent: *\nDisallow: /a?b=1&c=2\n", "x", "/a?b=1&c=2", false, ""},
		{"User-agent: *\nDisallow: /a?b=1&c=2\n", "x", "/a?c=2&b=1", true, ""},
		{"User-agent: *\nDisallow:\n", "x", "/", true, ""},

		{"User-agent: Scout\nDisallow: /\n", "Scoutbot", "/x", true, whyPrefixAgent},
		{"User-agent: FooBot/1.2\nDisallow: /\n", "FooBot", "/x", false, whyAgentVersion},
		{"User-agent: *\nDisallow: /a\nAllow: /a\n", "x", "/a", true, whyTie},
		{"User-agent: *\nDisallow: /x\nAllow: /x*\n", "x", "/x", true, whyWildLength},
		{"User-agent: *\nDisallow: /private*.html\n", "x", "/x/private.html", true, whyUnanchored},
		{"User-agent: *\nDisallow: /a$b\n", "x", "/a$b", false, whyDollarInside},
		{"User-agent: *\nDisallow: /%7Ea\n", "x", "/~a", false, whyPercent},
		{"User-agent: *\nDisallow: /a%2fb\n", "x", "/a%2Fb", false, whyPercent},
		{"User-agent: *\nDisallow: /ツ\n", "x", "/%E3%83%84", false, whyPercent},
		{"User-agent: *\nDisallow: /\n", "x", "/robots.txt", true, whyRobotsTxt},
		{"User-agent: *\nDisallow: private\n", "x", "/private", true, whySlashAdded},
		{"User-agent: *\nDisallow: /path/foo-%24\n", "x", "/path/foo-$", false, whyPercent},
		{"User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /\n", "a", "/x", false, whyCrawlDelayRun},
		{"Disallow: /x\nUser-agent: *\nDisallow: /y\n", "x", "/y", false, whyEarlyRule},
	}
	for _, c := range cases {
		got := robots.Parse([]byte(c.body)).Group(c.agent).Decide(c.path).Allowed
		if got != c.heed {
			t.Errorf("heed %q %s %s = %v, want %v", c.body, c.agent, c.path, got, c.heed)
		}
		r, err := robotstxt.FromString(c.body)
		agrees := err == nil && r.FindGroup(c.agent).Test(c.path) == got
		switch {
		case c.why == "" && !agrees:
			t.Errorf("temoto disagrees on %q %s %s (err %v)", c.body, c.agent, c.path, err)
		case c.why != "" && agrees:
			t.Errorf("temoto now agrees on %q %s %s; the documented difference (%s) is gone", c.body, c.agent, c.path, c.why)
		}
	}
}

// TestDifferentialTemotoRandom generates files in the common ground of the
// two libraries (one "*" group and one named group; ASCII patterns without
// "%", either literal or starting with "/*") and compares every verdict in
// which exactly one rule matches, so that the documented ranking
// differences (ties, wildcard length) cannot explain a disagreement.
func TestDifferentialTemotoRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9309, 1))
	pieces := []string{"a", "b", "ab", "/", ".html", "?q=", "x/", "-"}
	gen := func(wild bool) string {
		var b strings.Builder
		b.WriteString("/")
		for n := rng.IntN(4); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if wild && rng.IntN(4) == 0 {
				b.WriteString("*")
			}
		}
		return b.String()
	}
	compared := 0
	for file := 0; file < 400; file++ {
		var body strings.Builder
		for _, agent := range []string{"*", "FooBot"} {
			body.WriteString("User-agent: " + agent + "\n")
			for n := 1 + rng.IntN(5); n > 0; n-- {
				kind := "Disallow"
				if rng.IntN(2) == 0 {
					kind = "Allow"
				}
				// temoto compiles patterns with "*" or "$" to regexps that
				// are not anchored at the start; they mean the same as
				// heed's only when they start with "/*".
				p := gen(false)
				if rng.IntN(2) == 0 {
					p = "/*" + gen(true)[1:]
					if rng.IntN(3) == 0 {
						p += "$"
					}
				}
				body.WriteString(kind + ": " + p + "\n")
			}
		}
		f := robots.Parse([]byte(body.String()))
		r, err := robotstxt.FromString(body.String())
		if err != nil {
			t.Fatalf("temoto: %v\n%s", err, body.String())
		}
		for _, agent := range []string{"FooBot", "other"} {
			g := f.Group(agent)
			tg := r.FindGroup(agent)
			for n := 0; n < 20; n++ {
				path := gen(false)
				if path == "/robots.txt" || matchingRules(g, path) != 1 {
					continue
				}
				compared++
				if h, o := g.Decide(path).Allowed, tg.Test(path); h != o {
					t.Errorf("%s %s: heed %v, temoto %v\n%s", agent, path, h, o, body.String())
				}
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d verdicts compared", compared)
	}
}

// matchingRules counts the rules of g that match path, using single-rule
// groups built from the same rule.
func matchingRules(g *robots.Group, path string) int {
	n := 0
	for _, r := range g.Rules() {
		body := "User-agent: *\n" + r.Text + "\n"
		if v := robots.Parse([]byte(body)).Group("x").Decide(path); v.Rule != nil {
			n++
		}
	}
	return n
}

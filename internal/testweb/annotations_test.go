package testweb

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// This file re-derives every hand-written exclusion with a deliberately
// naive reading of RFC 9309 that lives only in this test: if the two
// disagree, an annotation (or the naive reading) is wrong, and a human
// decides which. The naive reader is never used by the oracle.

type naiveRule struct {
	allow   bool
	pattern string
	line    int
}

type naiveGroup struct {
	agents []string
	rules  []naiveRule
}

// naiveParse groups a robots.txt body: consecutive user-agent lines open
// a group, and only a rule line ends the run of user-agent lines (any
// other line, such as Sitemap, is ignored).
func naiveParse(body string) []*naiveGroup {
	var groups []*naiveGroup
	var cur *naiveGroup
	inAgents := false
	for i, raw := range strings.Split(body, "\n") {
		l, _, _ := strings.Cut(strings.TrimSuffix(raw, "\r"), "#")
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if !inAgents {
				cur = &naiveGroup{}
				groups = append(groups, cur)
			}
			cur.agents = append(cur.agents, val)
			inAgents = true
		case "allow", "disallow":
			if cur != nil && val != "" {
				cur.rules = append(cur.rules, naiveRule{allow: key == "allow", pattern: val, line: i + 1})
			}
			inAgents = false
		}
	}
	return groups
}

// naiveNormalize percent-encodes non-ASCII octets, decodes encoded
// unreserved characters and upper-cases the remaining escapes.
func naiveNormalize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			fmt.Fprintf(&b, "%%%02X", c)
		case c == '%' && i+2 < len(s):
			var v byte
			if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &v); err == nil {
				if v < 0x80 && (v >= 'a' && v <= 'z' || v >= 'A' && v <= 'Z' || v >= '0' && v <= '9' || strings.IndexByte("-._~", v) >= 0) {
					b.WriteByte(v)
				} else {
					fmt.Fprintf(&b, "%%%02X", v)
				}
				i += 2
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func naiveMatch(pattern, uri string) bool {
	pattern, uri = naiveNormalize(pattern), naiveNormalize(uri)
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	expr := "^" + strings.Join(parts, ".*")
	if anchored {
		expr += "$"
	}
	return regexp.MustCompile(expr).MatchString(uri)
}

// naiveDecide returns the line of the rule that disallows uri for agent,
// 0 when it is allowed.
func naiveDecide(body, agent, uri string) int {
	if uri == "/robots.txt" {
		return 0
	}
	var named, star []naiveRule
	for _, g := range naiveParse(body) {
		for _, a := range g.agents {
			if strings.EqualFold(a, agent) {
				named = append(named, g.rules...)
				break
			}
			if a == "*" {
				star = append(star, g.rules...)
				break
			}
		}
	}
	rules := named
	if len(named) == 0 {
		rules = star
	}
	best := naiveRule{allow: true, line: 0}
	bestLen := -1
	for _, r := range rules {
		if !naiveMatch(r.pattern, uri) {
			continue
		}
		n := len(naiveNormalize(r.pattern))
		if n > bestLen || (n == bestLen && r.allow) {
			best, bestLen = r, n
		}
	}
	if best.allow {
		return 0
	}
	return best.line
}

func TestNaiveMatcher(t *testing.T) {
	for _, tc := range []struct {
		pattern, uri string
		want         bool
	}{
		{"/fish", "/fish.html", true},
		{"/fish", "/Fish", false},
		{"/*.pdf$", "/a/b.pdf", true},
		{"/*.pdf$", "/a/b.pdf?x", false},
		{"/%7Ejoe/", "/~joe/x", true},
		{"/café/", "/caf%C3%A9/x", true},
		{"/*?sessionid=", "/i?a=1&sessionid=2", false},
	} {
		if got := naiveMatch(tc.pattern, tc.uri); got != tc.want {
			t.Errorf("naiveMatch(%q, %q) = %v", tc.pattern, tc.uri, got)
		}
	}
}

// TestAnnotationsAgreeWithNaiveReading checks, for every scenario host
// with rules, every declared page, route and sitemap URI, and every agent
// the oracle supports, that the declared exclusion is the naive reading's.
func TestAnnotationsAgreeWithNaiveReading(t *testing.T) {
	s := startScenario(t)
	checked := 0
	for _, h := range s.Hosts() {
		sh := h.content.(*scenarioHost)
		f := sh.outcome.file
		if f == nil {
			continue
		}
		body := string(f.body())
		if len(body) > RobotsParseLimit {
			body = body[:RobotsParseLimit]
		}
		uris := map[string]bool{}
		for uri := range sh.pages {
			uris[uri] = true
		}
		for uri := range sh.routes {
			uris[uri] = true
		}
		for _, l := range f.lines {
			for _, x := range l.excludes {
				uris[x] = true
			}
		}
		for _, agent := range append(oracleAgents, "*", "") {
			for uri := range uris {
				declared, _, _ := f.decide(agent, uri)
				if naive := naiveDecide(body, agent, uri); naive != declared {
					t.Errorf("%s %s for %q: declared line %d, naive reading line %d", h.Name, uri, agent, declared, naive)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d decisions checked", checked)
	}
}

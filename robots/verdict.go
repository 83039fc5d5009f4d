package robots

import (
	"fmt"
	"net/url"
	"strings"
	"unsafe"
)

// Verdict is the answer for one URL, with its evidence.
type Verdict struct {
	// Allowed is whether the crawler may fetch the URL.
	Allowed bool
	// Rule is the rule that decided, nil when no rule matched (allowed by
	// default) or when Implicit.
	Rule *Rule
	// Implicit is true for /robots.txt, which RFC 9309 §2.2.2 always
	// allows whatever the rules say.
	Implicit bool
	// Group is how the group was chosen; shared by every verdict of the
	// group, do not modify.
	Group *GroupMatch
}

// String explains the verdict in one line, for logs:
//
//	disallowed by line 4 "Disallow: /private/" of user-agent "*" (line 1)
//	allowed: no rule matches (user-agent "FooBot" (line 3))
//	allowed: /robots.txt is always allowed
func (v Verdict) String() string {
	word := "disallowed"
	if v.Allowed {
		word = "allowed"
	}
	switch {
	case v.Implicit:
		return word + ": /robots.txt is always allowed"
	case v.Rule != nil:
		return fmt.Sprintf("%s by line %d %q of %s", word, v.Rule.Line, v.Rule.Text, v.Group)
	case v.Group == nil || v.Group.Kind == MatchNone:
		return word + ": no group applies to " + quoteToken(v.Group)
	}
	return fmt.Sprintf("%s: no rule matches (%s)", word, v.Group)
}

func quoteToken(m *GroupMatch) string {
	if m == nil {
		return `""`
	}
	return fmt.Sprintf("%q", m.Token)
}

// stackPath is the size of the buffer Decide normalises into without
// allocating; longer paths that need rewriting are copied to the heap.
const stackPath = 512

// Decide answers whether the group lets the crawler fetch pathAndQuery, the
// URL's path and query exactly as they are sent: the escaped path, then "?"
// and the raw query when there is one — what (*url.URL).RequestURI returns,
// or [RequestTarget] for a URL string. Decide never decodes and re-encodes
// or re-orders anything; it applies RFC 9309 §2.2.2 normalisation to both
// sides. An empty path means "/".
//
// The longest matching pattern decides; between an Allow and a Disallow of
// the same length, Allow; no match allows. "/robots.txt" (query ignored)
// is always allowed.
//
// Decide does not allocate when pathAndQuery is already normalised (no "%"
// escapes of unreserved characters or with lower-case hex, no octet outside
// printable ASCII) and takes time linear in its length for every rule.
func (g *Group) Decide(pathAndQuery string) Verdict {
	s := pathAndQuery
	if s == "" || s[0] == '?' || !isCanonical(s) {
		var buf [stackPath]byte
		b := buf[:0]
		if s == "" || s[0] == '?' {
			b = append(b, '/')
		}
		b = appendNormalised(b, s)
		return g.decide(bytesView(b))
	}
	return g.decide(s)
}

// DecideURL is Decide for u's escaped path and raw query (u.RequestURI()
// without its allocation). The scheme and authority are not looked at: the
// caller has already picked the robots.txt of u's authority.
func (g *Group) DecideURL(u *url.URL) Verdict {
	if u.Opaque != "" {
		return g.Decide(u.RequestURI())
	}
	p := u.EscapedPath()
	if !u.ForceQuery && u.RawQuery == "" {
		return g.Decide(p)
	}
	var buf [stackPath]byte
	b := buf[:0]
	if p == "" {
		b = append(b, '/')
	}
	b = appendNormalised(b, p)
	b = append(b, '?')
	b = appendNormalised(b, u.RawQuery)
	return g.decide(bytesView(b))
}

// bytesView looks at b as a string without copying. decide only reads it
// and keeps no reference, so b (often on Decide's stack) is never seen
// after it changes.
func bytesView(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// decide works on a normalised path.
func (g *Group) decide(s string) Verdict {
	if isRobotsTxt(s) {
		return Verdict{Allowed: true, Implicit: true, Group: &g.match}
	}
	if m := g.index.find(s); m != nil {
		return Verdict{Allowed: m.rule.Allow, Rule: m.rule, Group: &g.match}
	}
	return Verdict{Allowed: true, Group: &g.match}
}

func isRobotsTxt(s string) bool {
	const p = "/robots.txt"
	return strings.HasPrefix(s, p) && (len(s) == len(p) || s[len(p)] == '?')
}

// RequestTarget returns the path, parameters and query of rawURL as
// robots.txt rules see them, exactly as written: the fragment is dropped,
// an empty path becomes "/", nothing is decoded or re-encoded. It never
// fails. Like Google's matcher it reads a string without a scheme as a host
// followed by an optional path ("example.com/a" is /a), and a leading "//"
// as the start of an authority.
func RequestTarget(rawURL string) string {
	s := rawURL
	if h := strings.IndexByte(s, '#'); h >= 0 {
		s = s[:h]
	}
	start := 0
	if strings.HasPrefix(s, "//") {
		start = 2
	}
	// "://" marks a scheme only if it comes before any "/", "?" or ";".
	if p := strings.Index(s[start:], "://"); p >= 0 && !strings.ContainsAny(s[start:start+p], "/?;") {
		start += p + 3
	}
	i := strings.IndexAny(s[start:], "/?;")
	if i < 0 {
		return "/"
	}
	t := s[start+i:]
	if t[0] != '/' {
		return "/" + t
	}
	return t
}

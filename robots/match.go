package robots

import "strings"

// matcher is a compiled pattern. A pattern is literal segments separated by
// runs of "*", optionally anchored at the end by a final "$". Matching is
// greedy and leftmost: the first segment must start the path, each middle
// segment is found at its leftmost place after the previous one, and the
// last segment is either found anywhere after that or, when anchored, must
// end the path. Leftmost placement leaves the most room for what follows,
// so it finds a match whenever one exists, and each segment search resumes
// where the previous one ended: the work is linear in the path length
// (strings.Index falls back to Rabin-Karp on hard inputs).
type matcher struct {
	rule     *Rule
	prefix   string   // literal before the first "*"; the whole body if none
	middle   []string // non-empty literals between "*" runs
	last     string   // literal after the last "*"
	wild     bool     // the pattern has a "*"
	anchored bool     // the pattern ends with "$"
}

func compile(r *Rule) matcher {
	p := r.Pattern
	m := matcher{rule: r}
	if strings.HasSuffix(p, "$") {
		m.anchored = true
		p = p[:len(p)-1]
	}
	star := strings.IndexByte(p, '*')
	if star < 0 {
		m.prefix = p
		return m
	}
	m.wild = true
	m.prefix = p[:star]
	rest := p[star+1:]
	end := strings.LastIndexByte(rest, '*')
	if end < 0 {
		m.last = rest
		return m
	}
	m.last = rest[end+1:]
	for _, seg := range strings.Split(rest[:end], "*") {
		if seg != "" {
			m.middle = append(m.middle, seg)
		}
	}
	return m
}

// match reports whether the normalised path s matches.
func (m *matcher) match(s string) bool {
	if len(s) < len(m.prefix) || s[:len(m.prefix)] != m.prefix {
		return false
	}
	if !m.wild {
		return !m.anchored || len(s) == len(m.prefix)
	}
	pos := len(m.prefix)
	for _, seg := range m.middle {
		i := strings.Index(s[pos:], seg)
		if i < 0 {
			return false
		}
		pos += i + len(seg)
	}
	if m.anchored {
		return len(s)-pos >= len(m.last) && s[len(s)-len(m.last):] == m.last
	}
	return m.last == "" || strings.Contains(s[pos:], m.last)
}

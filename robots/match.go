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
	// need is the set of octets of the pattern's literals: a path that
	// lacks one of them cannot match. Normalised text is ASCII, so 128
	// bits cover it.
	need charSet
}

// charSet is a set of ASCII octets.
type charSet [2]uint64

func (cs *charSet) add(s string) {
	lo, hi := cs[0], cs[1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		bit := uint64(1) << (c & 63)
		upper := -uint64(c >> 6 & 1) // all ones for octets 64..127
		lo |= bit &^ upper
		hi |= bit & upper
	}
	cs[0], cs[1] = lo, hi
}

// within reports whether every octet of cs is in have.
func (cs *charSet) within(have *charSet) bool {
	return cs[0]&^have[0] == 0 && cs[1]&^have[1] == 0
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
		m.need.add(p)
		return m
	}
	m.wild = true
	m.prefix = p[:star]
	m.need.add(m.prefix)
	rest := p[star+1:]
	end := strings.LastIndexByte(rest, '*')
	if end < 0 {
		m.last = rest
		m.need.add(m.last)
		return m
	}
	m.last = rest[end+1:]
	for _, seg := range strings.Split(rest[:end], "*") {
		if seg != "" {
			m.middle = append(m.middle, seg)
			m.need.add(seg)
		}
	}
	m.need.add(m.last)
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

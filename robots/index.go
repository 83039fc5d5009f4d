package robots

import "slices"

// ruleIndex holds a group's compiled rules in priority order (longest
// pattern first, then Allow, then line), so that the first rule that
// matches a path decides it, and narrows down which rules to try:
//
//   - Rules whose pattern starts with "/" and one more literal octet are
//     bucketed by that octet: a path /x... can only match the rules of
//     bucket 'x' and the rules in general (those starting with "/*", "*"
//     or just "/"). find merges the two lists by rank.
//   - Each candidate carries the set of octets its literals need, next to
//     its rank in a dense array; a rule whose octets are not all in the
//     path is skipped with two AND instructions, without touching the
//     matcher. Query-parameter rules such as /*?sort= are skipped this way
//     for every path without "?".
type ruleIndex struct {
	ms          []matcher // priority order
	bucket      []candidate
	bucketStart [257]int32
	general     []candidate
}

type candidate struct {
	need charSet
	rank int32 // index into ms
}

func (x *ruleIndex) build(rules []*Rule) {
	// Sort small keys, not matchers: a large group has thousands of rules.
	type key struct {
		length, allow, line int32
		i                   int32
	}
	keys := make([]key, len(rules))
	for i, r := range rules {
		allow := int32(1)
		if r.Allow {
			allow = 0
		}
		keys[i] = key{-int32(min(len(r.Pattern), 1<<30)), allow, int32(min(r.Line, 1<<30)), int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		switch {
		case a.length != b.length:
			return int(a.length - b.length)
		case a.allow != b.allow:
			return int(a.allow - b.allow)
		case a.line != b.line:
			return int(a.line - b.line)
		}
		return int(a.i - b.i)
	})
	x.ms = make([]matcher, len(rules))
	for rank, k := range keys {
		x.ms[rank] = compile(rules[k.i])
	}
	var counts [256]int32
	for i := range x.ms {
		if c, ok := x.ms[i].bucketKey(); ok {
			counts[c]++
		} else {
			x.general = append(x.general, candidate{need: x.ms[i].need, rank: int32(i)})
		}
	}
	for c := range 256 {
		x.bucketStart[c+1] = x.bucketStart[c] + counts[c]
	}
	x.bucket = make([]candidate, x.bucketStart[256])
	var fill [256]int32
	for i := range x.ms {
		if c, ok := x.ms[i].bucketKey(); ok {
			x.bucket[x.bucketStart[c]+fill[c]] = candidate{need: x.ms[i].need, rank: int32(i)}
			fill[c]++
		}
	}
}

func (m *matcher) bucketKey() (byte, bool) {
	if len(m.prefix) >= 2 && m.prefix[0] == '/' {
		return m.prefix[1], true
	}
	return 0, false
}

// find returns the highest-priority matcher that matches the normalised
// path s, or nil.
func (x *ruleIndex) find(s string) *matcher {
	var a []candidate
	if len(s) >= 2 && s[0] == '/' {
		c := s[1]
		a = x.bucket[x.bucketStart[c]:x.bucketStart[int(c)+1]]
	}
	b := x.general
	if len(a)+len(b) == 0 {
		return nil
	}
	var have charSet
	have.add(s)
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c *candidate
		if j == len(b) || i < len(a) && a[i].rank < b[j].rank {
			c = &a[i]
			i++
		} else {
			c = &b[j]
			j++
		}
		if !c.need.within(&have) {
			continue
		}
		if m := &x.ms[c.rank]; m.match(s) {
			return m
		}
	}
	return nil
}

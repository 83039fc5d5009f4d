package robots

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// MatchKind says how a crawler's group was chosen.
type MatchKind uint8

const (
	// MatchNone: no group names the crawler and there is no "*" group, so
	// nothing is disallowed.
	MatchNone MatchKind = iota
	// MatchNamed: one or more groups name the crawler's product token.
	MatchNamed
	// MatchStar: no group names the crawler; the "*" groups apply.
	MatchStar
)

// String returns "none", "named" or "star".
func (k MatchKind) String() string {
	switch k {
	case MatchNamed:
		return "named"
	case MatchStar:
		return "star"
	}
	return "none"
}

// GroupMatch is how a [Group] was chosen: which product token was asked
// for and which user-agent lines selected the group.
type GroupMatch struct {
	Kind MatchKind
	// Token is the product token the group was selected for.
	Token string
	// Agents are the user-agent lines of the groups that apply, in file
	// order: the lines naming Token (or the "*" lines) and any other
	// user-agent line of the same groups, so that a group shared with
	// another agent (for example through a Sitemap line between two
	// user-agent lines) shows it. Empty for MatchNone.
	Agents []AgentLine
}

// Values returns the user-agent values of m.Agents, as written.
func (m *GroupMatch) Values() []string {
	v := make([]string, len(m.Agents))
	for i, a := range m.Agents {
		v[i] = a.Value
	}
	return v
}

// Lines returns the line numbers of m.Agents.
func (m *GroupMatch) Lines() []int {
	v := make([]int, len(m.Agents))
	for i, a := range m.Agents {
		v[i] = a.Line
	}
	return v
}

// String describes the match: `user-agent "FooBot" (line 3)`, `user-agent
// "*" (lines 1, 9)` or `no group`.
func (m *GroupMatch) String() string {
	if m.Kind == MatchNone || len(m.Agents) == 0 {
		return "no group"
	}
	var b strings.Builder
	b.WriteString("user-agent ")
	for i, a := range m.Agents {
		if i > 0 && a.Value != m.Agents[i-1].Value {
			b.WriteString(", ")
		}
		if i == 0 || a.Value != m.Agents[i-1].Value {
			fmt.Fprintf(&b, "%q", a.Value)
		}
	}
	if len(m.Agents) == 1 {
		fmt.Fprintf(&b, " (line %d)", m.Agents[0].Line)
		return b.String()
	}
	b.WriteString(" (lines ")
	for i, a := range m.Agents {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", a.Line)
	}
	b.WriteString(")")
	return b.String()
}

// Group is the set of rules that applies to one crawler: the merged groups
// naming its product token, else the merged "*" groups, else nothing. It is
// immutable and safe for concurrent use; select it once per robots.txt and
// call [Group.Decide] for every URL.
type Group struct {
	match    GroupMatch
	rules    []*Rule // file order
	index    ruleIndex
	delay    time.Duration
	hasDelay bool
	usage    []UsageRule // file order
	usageM   []matcher   // usage[i]'s path, compiled
}

func newGroup(match GroupMatch, rules []*Rule) *Group {
	g := &Group{match: match, rules: rules}
	g.index.build(rules)
	return g
}

// Group returns the rules that apply to the crawler whose product token is
// token (RFC 9309 §2.2.1): every group with a user-agent line naming the
// token, compared case-insensitively and as a whole token, merged into one;
// when none does, every "*" group merged; when there is no "*" group
// either, a Group with no rules that allows everything. A name with
// digits such as MJ12bot, which RFC 9309 does not allow but real files
// use, is matched the same way (see [MatchableToken]); any other token
// names no group, so only "*" can apply to it. The result is never nil.
func (f *File) Group(token string) *Group {
	if MatchableToken(token) {
		names := func(a AgentLine) bool { return a.Token != "" && strings.EqualFold(a.Token, token) }
		if gis := f.groupsWhere(names); len(gis) > 0 {
			return f.merge(MatchNamed, token, gis)
		}
	}
	if gis := f.groupsWhere(isStarLine); len(gis) > 0 {
		return f.merge(MatchStar, token, gis)
	}
	return f.merge(MatchNone, token, nil)
}

// groupsWhere returns the indices of the parsed groups with an agent line
// for which pick is true.
func (f *File) groupsWhere(pick func(AgentLine) bool) []int {
	var gis []int
	for gi := range f.groups {
		if slices.ContainsFunc(f.agentsOf(&f.groups[gi]), pick) {
			gis = append(gis, gi)
		}
	}
	return gis
}

// merge builds the Group of the parsed groups gis (in file order): their
// rules in file order, the first valid Crawl-delay, and all their agent
// lines as the evidence of the match.
func (f *File) merge(kind MatchKind, token string, gis []int) *Group {
	match := GroupMatch{Kind: kind, Token: token}
	var rules []*Rule
	var delay time.Duration
	hasDelay := false
	for _, gi := range gis {
		pg := &f.groups[gi]
		match.Agents = append(match.Agents, f.agentsOf(pg)...)
		for i := pg.rulesFrom; i < pg.rulesTo; i++ {
			rules = append(rules, &f.rules[i])
		}
		if pg.delayLine > 0 && !hasDelay {
			delay, hasDelay = pg.delay, true
		}
	}
	g := newGroup(match, rules)
	g.delay, g.hasDelay = delay, hasDelay
	for _, gi := range gis {
		pg := &f.groups[gi]
		g.usage = append(g.usage, f.usage[pg.usageFrom:pg.usageTo]...)
	}
	g.usageM = make([]matcher, len(g.usage))
	for i := range g.usage {
		u := &g.usage[i]
		g.usageM[i] = compile(&Rule{Line: u.Line, Text: u.Text, Pattern: u.Pattern})
	}
	return g
}

func isStarLine(a AgentLine) bool {
	star, _ := agentToken(a.Value)
	return star
}

// Match says how the group was chosen.
func (g *Group) Match() GroupMatch { return g.match }

// Rules returns the group's rules in file order.
func (g *Group) Rules() []Rule {
	out := make([]Rule, len(g.rules))
	for i, r := range g.rules {
		out[i] = *r
	}
	return out
}

// CrawlDelay returns the group's Crawl-delay: the first valid one among
// its Crawl-delay lines in file order. A named group does not inherit the
// "*" group's Crawl-delay. ok is false when the group has none.
func (g *Group) CrawlDelay() (d time.Duration, ok bool) { return g.delay, g.hasDelay }

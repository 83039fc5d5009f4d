package testweb

import (
	"bytes"
	"strings"
)

// A robots.txt file is declared line by line. Every line knows the group
// it belongs to, and every rule line lists, by hand, the request URIs it
// decides as disallowed for that group. The oracle never matches a pattern:
// it selects groups by their declared agents and looks the URI up in those
// lists. The file body is rendered from the same lines, so line numbers are
// exact by construction.

// rline is one line of a declared robots.txt file.
type rline struct {
	text string
	// group is the group the line belongs to; 0 for lines that belong to
	// none (comments, blank lines, Sitemap lines).
	group int
	// agent is the product token of a user-agent line, as written.
	agent string
	// excludes lists the request URIs this Disallow line decides as
	// disallowed for its group: the longest matching rule, with ties to
	// Allow, worked out by hand when the scenario was written.
	excludes []string
	// excludesFn decides by construction for generated sites, whose URIs
	// are too many to list.
	excludesFn func(uri string) bool
}

func (l *rline) decides(uri string) bool {
	if l.excludesFn != nil && l.excludesFn(uri) {
		return true
	}
	for _, x := range l.excludes {
		if x == uri {
			return true
		}
	}
	return false
}

// robotsFile is a declared robots.txt.
type robotsFile struct {
	lines []rline
	crlf  bool
}

// body renders the file, one declared line per line.
func (f *robotsFile) body() []byte {
	eol := "\n"
	if f.crlf {
		eol = "\r\n"
	}
	var b bytes.Buffer
	for _, l := range f.lines {
		b.WriteString(l.text)
		b.WriteString(eol)
	}
	return b.Bytes()
}

// selectGroups returns the groups that apply to agent: every group with a
// user-agent line equal to agent (case-insensitively, the whole token),
// else every "*" group, else none.
func (f *robotsFile) selectGroups(agent string) map[int]bool {
	named, star := map[int]bool{}, map[int]bool{}
	for _, l := range f.lines {
		switch {
		case l.agent == "":
		case strings.EqualFold(l.agent, agent):
			named[l.group] = true
		case l.agent == "*":
			star[l.group] = true
		}
	}
	if len(named) > 0 {
		return named
	}
	return star
}

// decide returns the 1-based line that disallows uri for agent, with the
// group's user-agent values and their lines; line 0 means allowed.
func (f *robotsFile) decide(agent, uri string) (line int, agents []string, agentLines []int) {
	if uri == "/robots.txt" {
		return 0, nil, nil
	}
	groups := f.selectGroups(agent)
	for i := range f.lines {
		l := &f.lines[i]
		if l.group != 0 && groups[l.group] && l.agent == "" && l.decides(uri) {
			line = i + 1
			break
		}
	}
	if line == 0 {
		return 0, nil, nil
	}
	for i, l := range f.lines {
		if l.agent != "" && groups[l.group] {
			agents = append(agents, l.agent)
			agentLines = append(agentLines, i+1)
		}
	}
	return line, agents, agentLines
}

// robotsOutcome is how a host's robots.txt turns out for a crawler that
// follows RFC 9309.
type robotsOutcome struct {
	// unreachable: 5xx, 429 or timeout: complete disallow.
	unreachable bool
	// status is the status of the answer the crawler ends with (the last
	// redirect hop); 0 for a timeout.
	status int
	// file holds the rules that apply; nil means no restrictions.
	file *robotsFile
}

// robotsBuilder declares a robots.txt file.
type robotsBuilder struct {
	f   robotsFile
	cur int // the current group
}

func newRobots() *robotsBuilder { return &robotsBuilder{} }

// comment adds a comment line outside any group ("# " + text).
func (b *robotsBuilder) comment(text string) *robotsBuilder {
	return b.other("# " + text)
}

// blank adds an empty line.
func (b *robotsBuilder) blank() *robotsBuilder { return b.other("") }

// other adds a line that belongs to no group, such as a Sitemap line.
func (b *robotsBuilder) other(text string) *robotsBuilder {
	b.f.lines = append(b.f.lines, rline{text: text})
	return b
}

// group starts a new group with one user-agent line per agent.
func (b *robotsBuilder) group(agents ...string) *robotsBuilder {
	b.cur++
	for _, a := range agents {
		b.agent(a)
	}
	return b
}

// agent adds a user-agent line to the current group.
func (b *robotsBuilder) agent(token string) *robotsBuilder {
	b.f.lines = append(b.f.lines, rline{text: "User-agent: " + token, group: b.cur, agent: token})
	return b
}

// rule adds a line to the current group, written exactly as text, that
// decides the listed URIs as disallowed.
func (b *robotsBuilder) rule(text string, excludes ...string) *robotsBuilder {
	b.f.lines = append(b.f.lines, rline{text: text, group: b.cur, excludes: excludes})
	return b
}

// ruleFn is rule for URIs decided by a function (generated sites).
func (b *robotsBuilder) ruleFn(text string, fn func(uri string) bool) *robotsBuilder {
	b.f.lines = append(b.f.lines, rline{text: text, group: b.cur, excludesFn: fn})
	return b
}

func (b *robotsBuilder) withCRLF() *robotsBuilder {
	b.f.crlf = true
	return b
}

func (b *robotsBuilder) file() *robotsFile {
	f := b.f
	return &f
}

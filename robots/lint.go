package robots

import (
	"fmt"
	"slices"
	"strings"
)

// Severity says how much a finding matters.
type Severity string

const (
	// Warning: the file probably does not do what its author meant, or
	// some crawlers will read it differently.
	Warning Severity = "warning"
	// Info: worth knowing; the file works as written.
	Info Severity = "info"
)

// Codes of lint findings. They are stable: tools may filter on them.
const (
	// CodeNamedGroupDropsStarRules: a group names the agent, so the agent
	// ignores the "*" group; Related lists the "*" Disallow rules it no
	// longer obeys (those not repeated in its group and not covered by a
	// rule of its own).
	CodeNamedGroupDropsStarRules = "named-group-drops-star-rules"
	// CodeLineMergesGroups: a line that is not a user-agent line or a
	// rule (Sitemap, Crawl-delay, an unknown or unreadable line) between
	// two user-agent lines does not end the first group, so both agents
	// share the rules that follow. Every such line is reported.
	CodeLineMergesGroups = "non-group-line-merges-groups"
	// CodeBlankLineMergesGroups: user-agent lines separated only by blank
	// lines (no rules between them) form one group.
	CodeBlankLineMergesGroups = "blank-line-does-not-end-group"
	// CodeRuleOutsideGroup: an Allow, Disallow or Crawl-delay line before
	// any user-agent line; no crawler applies it.
	CodeRuleOutsideGroup = "rule-before-user-agent"
	// CodeMissingLeadingSlash: an Allow/Disallow value that starts with
	// neither "/" nor "*". RFC 9309's path patterns start with "/";
	// heed, like Google's open-source matcher, compares the value as
	// written from the path's first octet (always "/"), so the rule
	// matches no URL.
	CodeMissingLeadingSlash = "path-without-leading-slash"
	// CodeRedundantWildcard: a trailing "*" (/fish*), which matches what
	// the pattern without it matches.
	CodeRedundantWildcard = "redundant-trailing-wildcard"
	// CodeUnknownField: a field name that is not part of the protocol;
	// the message guesses the intended one when it is close.
	CodeUnknownField = "unknown-field"
	// CodeMisspelledField: a misspelling heed accepts (dissallow,
	// useragent, crawl delay, ...); the message says what it was taken as.
	CodeMisspelledField = "misspelled-field"
	// CodeMissingColon: "disallow /" without a colon, accepted as two words.
	CodeMissingColon = "missing-colon"
	// CodeUnparseableLine: a line that is not "field: value".
	CodeUnparseableLine = "unparseable-line"
	// CodeContentPastLimit: the file is longer than the bytes crawlers
	// must read (500 KiB); the rest is ignored.
	CodeContentPastLimit = "content-past-limit"
	// CodeInvalidCrawlDelay: a Crawl-delay that is not a non-negative
	// number of seconds.
	CodeInvalidCrawlDelay = "invalid-crawl-delay"
	// CodeRelativeSitemap: a Sitemap value that is not an absolute URL.
	CodeRelativeSitemap = "relative-sitemap-url"
	// CodeInvalidSitemap: a Sitemap line without a value or whose value
	// is not a URL.
	CodeInvalidSitemap = "invalid-sitemap-url"
	// CodeSensitivePath: a Disallow that advertises an admin, backup,
	// secret or similar path (RFC 9309 §3).
	CodeSensitivePath = "disallow-reveals-path"
	// CodeCaseSensitivePath: a pattern with capital letters, which does
	// not cover the lower-case path.
	CodeCaseSensitivePath = "case-sensitive-path"
	// CodeUserAgentNotToken: a user-agent value that is not "*" and not
	// only a product token ("FooBot/1.2" is read as FooBot; "*bot" names
	// no crawler).
	CodeUserAgentNotToken = "user-agent-not-a-token"
	// CodeAgentWithDigits: a user-agent value with digits ("MJ12bot",
	// "360Spider"), which RFC 9309 does not allow in a product token; the
	// message says how heed, an RFC-strict parser and Google read it.
	CodeAgentWithDigits = "user-agent-with-digits"
	// CodeInvalidContentUsage: a Content-Usage rule whose preference is
	// missing, is not a Structured Fields dictionary, has a value other
	// than y or n, or (with WithUsageLabels) a key outside the vocabulary.
	CodeInvalidContentUsage = "invalid-content-usage"
)

// Finding is one problem Lint found.
type Finding struct {
	// Line is the 1-based line the finding is about.
	Line int
	// Code is one of the Code constants.
	Code     string
	Severity Severity
	// Message explains the problem to a site owner.
	Message string
	// Related lists other lines the finding is about: for
	// CodeNamedGroupDropsStarRules, every "*" rule the agent no longer
	// obeys (the message names the first few).
	Related []int
}

// String formats the finding as "line 4: warning: message [code]".
func (f Finding) String() string {
	return fmt.Sprintf("line %d: %s: %s [%s]", f.Line, f.Severity, f.Message, f.Code)
}

// Lint reads a robots.txt body as Parse does and reports the traps RFC
// 9309 and experience describe: named groups that silently stop applying
// the "*" rules, lines that merge groups, rules outside groups,
// misspellings, patterns that do not mean what they seem, unreadable
// values, content past the size limit, and Disallow lines that advertise
// what they hide. Findings are ordered by line.
func Lint(body []byte, opts ...Option) []Finding {
	cfg := newConfig(opts)
	l := linter{labels: cfg.usageLabels}
	f := parse(body, cfg, l.line)
	l.file(f)
	slices.SortStableFunc(l.out, func(a, b Finding) int { return a.Line - b.Line })
	return l.out
}

type linter struct {
	out    []Finding
	labels []string // usage vocabulary, when given
	// The open run of user-agent lines: its last agent line, and what
	// came between it and the next line of the run.
	runOpen   bool
	lastAgent lineEvent
	between   []lineEvent // non-group lines (Sitemap, unknown, unparseable)
	blank     bool        // a blank line
}

func (l *linter) add(line int, code string, sev Severity, format string, args ...any) {
	l.out = append(l.out, Finding{Line: line, Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// line sees every line as the parser reads it.
func (l *linter) line(ev *lineEvent) {
	if ev.field == fieldNone {
		if !ev.comment {
			l.blank = true
		}
		return
	}
	if ev.typo {
		l.add(ev.num, CodeMisspelledField, Warning, "%q is not a field name; heed and Google read it as %s, other crawlers may ignore the line", ev.name, ev.field.canonicalName())
	}
	if ev.noColon && ev.field != fieldInvalid {
		l.add(ev.num, CodeMissingColon, Warning, "no colon after %q; heed and Google read the line as \"%s: %s\", other crawlers may ignore it", ev.name, ev.field.canonicalName(), ev.value)
	}
	switch ev.field {
	case fieldInvalid:
		l.add(ev.num, CodeUnparseableLine, Warning, "%q is not a \"field: value\" line and is ignored", ev.text)
		l.interrupt(ev)
	case fieldUnknown:
		l.unknown(ev)
		l.interrupt(ev)
	case fieldSitemap:
		l.sitemap(ev)
		l.interrupt(ev)
	case fieldCrawlDelay:
		l.interrupt(ev)
		if ev.groupIndex < 0 {
			l.add(ev.num, CodeRuleOutsideGroup, Warning, "%q comes before any User-agent line, so it applies to no crawler", ev.text)
		} else if ev.skip == SkipBadCrawlDelay {
			_, why := parseCrawlDelay(ev.value)
			l.add(ev.num, CodeInvalidCrawlDelay, Warning, "Crawl-delay %q is ignored (%s); write a number of seconds such as 10 or 0.5", ev.value, why)
		}
	case fieldAllow, fieldDisallow:
		l.runOpen = false
		l.rule(ev)
	case fieldContentUsage:
		l.runOpen = false
		l.usage(ev)
	case fieldUserAgent:
		l.agent(ev)
	}
}

// interrupt notes a line that sits inside a run of user-agent lines
// without ending it.
func (l *linter) interrupt(ev *lineEvent) {
	if l.runOpen {
		l.between = append(l.between, *ev)
	}
}

func (l *linter) agent(ev *lineEvent) {
	star, tok := agentToken(ev.value)
	if note := TokenNote(tok); !star && note != "" {
		l.add(ev.num, CodeAgentWithDigits, Info, "User-agent %s", note)
	}
	if !star && tok != ev.value {
		if tok == "" {
			l.add(ev.num, CodeUserAgentNotToken, Warning, "User-agent %q names no crawler: a product token is letters, \"-\" and \"_\" only (or \"*\" for all)", ev.value)
		} else {
			l.add(ev.num, CodeUserAgentNotToken, Info, "User-agent %q is read as the product token %q: the value up to the first character that is not a letter, digit, \"-\" or \"_\"", ev.value, tok)
		}
	}
	if !ev.startsGroup && l.runOpen {
		prev := l.lastAgent
		for _, b := range l.between {
			what := "the unrecognised line " + fmt.Sprintf("%q", b.text)
			switch b.field {
			case fieldSitemap:
				what = "a Sitemap line"
			case fieldCrawlDelay:
				what = "a Crawl-delay line"
			}
			l.add(b.num, CodeLineMergesGroups, Warning,
				"%s between \"User-agent: %s\" (line %d) and \"User-agent: %s\" (line %d) does not end a group: only a rule does, so both agents share the rules that follow; put it after the rules, or give the first agent its own rules",
				what, prev.value, prev.num, ev.value, ev.num)
		}
		if len(l.between) == 0 && l.blank {
			l.add(ev.num, CodeBlankLineMergesGroups, Info,
				"\"User-agent: %s\" (line %d) and \"User-agent: %s\" are one group: a blank line does not end a group that has no rules yet, so both agents share the rules that follow",
				prev.value, prev.num, ev.value)
		}
	}
	l.runOpen = true
	l.lastAgent = *ev
	l.between = l.between[:0]
	l.blank = false
}

func (l *linter) rule(ev *lineEvent) {
	if ev.groupIndex < 0 {
		l.add(ev.num, CodeRuleOutsideGroup, Warning, "%q comes before any User-agent line, so it applies to no crawler", ev.text)
		return
	}
	v := ev.value
	if v == "" {
		return
	}
	kind := ev.field.canonicalName()
	if v[0] != '/' && v[0] != '*' {
		l.add(ev.num, CodeMissingLeadingSlash, Warning, "%s value %q does not start with \"/\": RFC 9309 path patterns start with \"/\", and heed, like Google's open-source matcher, compares it as written from the first \"/\" of the path, so it matches no URL (some other parsers add the slash); write %q if that is meant", kind, v, "/"+v)
	}
	if body := strings.TrimSuffix(v, "$"); len(body) > 1 && strings.HasSuffix(body, "*") {
		same := strings.TrimRight(normalisePattern(body), "*")
		if same == "" {
			same = "/"
		}
		l.add(ev.num, CodeRedundantWildcard, Info, "the trailing \"*\" in %q does nothing: a rule already matches every path that starts with %q", v, same)
	}
	if ev.field == fieldDisallow {
		if word := sensitiveWord(v); word != "" {
			l.add(ev.num, CodeSensitivePath, Info, "%q tells everyone where %q is: robots.txt is public and is not access control (RFC 9309 §3); protect the path with authentication instead of listing it", ev.text, word)
		}
	}
	if lower := lowerPath(v); lower != v {
		l.add(ev.num, CodeCaseSensitivePath, Info, "paths are case-sensitive: %q does not cover %q", v, lower)
	}
}

func (l *linter) usage(ev *lineEvent) {
	if ev.groupIndex < 0 {
		l.add(ev.num, CodeRuleOutsideGroup, Warning, "%q comes before any User-agent line, so it applies to no crawler", ev.text)
		return
	}
	if ev.value == "" {
		l.add(ev.num, CodeInvalidContentUsage, Warning, "Content-Usage line without a preference is ignored")
		return
	}
	for _, msg := range checkUsage(newUsageRule(ev.num, ev.text, ev.value), l.labels) {
		l.add(ev.num, CodeInvalidContentUsage, Warning, "Content-Usage: %s", msg)
	}
}

func (l *linter) unknown(ev *lineEvent) {
	if guess := closestField(ev.name); guess != fieldUnknown {
		l.add(ev.num, CodeUnknownField, Warning, "unknown field %q is ignored; did you mean %s?", ev.name, guess.canonicalName())
		return
	}
	l.add(ev.num, CodeUnknownField, Info, "field %q is not part of RFC 9309; heed ignores the line", ev.name)
}

func (l *linter) sitemap(ev *lineEvent) {
	if ev.value == "" {
		l.add(ev.num, CodeInvalidSitemap, Warning, "Sitemap line without a URL")
		return
	}
	if !isURL(ev.value) {
		l.add(ev.num, CodeInvalidSitemap, Warning, "Sitemap %q is not a URL", ev.value)
		return
	}
	if !isAbsoluteURL(ev.value) {
		l.add(ev.num, CodeRelativeSitemap, Warning, "Sitemap %q is not an absolute URL; heed resolves it against the robots.txt URL, other crawlers may ignore it", ev.value)
	}
}

// file adds the findings that need the whole file.
func (l *linter) file(f *File) {
	if t := f.report.Truncated; t != nil {
		msg := fmt.Sprintf("the file is longer than the %d bytes crawlers must read: the last %d bytes, from line %d on, are ignored", t.Limit, t.BytesIgnored, t.Line)
		if t.LineCut {
			msg += fmt.Sprintf(" (line %d is cut by the limit and dropped)", t.Line)
		}
		l.add(t.Line, CodeContentPastLimit, Warning, "%s", msg)
	}
	l.droppedStarRules(f)
}

// droppedStarRules reports, for every product token that has its own
// group, the Disallow rules of "*" it no longer obeys: rules not repeated
// in its group whose path the group allows. A named group that disallows
// the path anyway (say with Disallow: /) loses nothing and is not reported.
// The work is tokens times "*" rules; past maxDropChecks the check stops
// and says so, so that Lint stays fast on any file.
func (l *linter) droppedStarRules(f *File) {
	star := f.Group("*")
	var starDisallows []*Rule
	var examples []string
	for _, r := range star.rules {
		if !r.Allow {
			starDisallows = append(starDisallows, r)
			examples = append(examples, examplePath(r.Pattern))
		}
	}
	if len(starDisallows) == 0 {
		return
	}
	// Each token's groups, found in one pass.
	type named struct {
		first AgentLine
		gis   []int
	}
	var order []string
	byToken := map[string]*named{}
	for gi := range f.groups {
		for _, a := range f.agentsOf(&f.groups[gi]) {
			if a.Token == "" {
				continue
			}
			key := strings.ToLower(a.Token)
			n := byToken[key]
			if n == nil {
				n = &named{first: a}
				byToken[key] = n
				order = append(order, key)
			}
			if len(n.gis) == 0 || n.gis[len(n.gis)-1] != gi {
				n.gis = append(n.gis, gi)
			}
		}
	}
	checks := 0
	for i, key := range order {
		n := byToken[key]
		if checks > maxDropChecks {
			l.add(n.first.Line, CodeNamedGroupDropsStarRules, Info,
				"the check for dropped \"User-agent: *\" rules stopped here: %d more agents were not checked", len(order)-i)
			return
		}
		g := f.merge(MatchNamed, n.first.Token, n.gis)
		own := make(map[Rule]bool, len(g.rules))
		for _, r := range g.rules {
			own[Rule{Allow: r.Allow, Pattern: r.Pattern}] = true
		}
		var lost []*Rule
		for i, r := range starDisallows {
			checks++
			if own[Rule{Allow: r.Allow, Pattern: r.Pattern}] || !g.Decide(examples[i]).Allowed {
				continue
			}
			lost = append(lost, r)
		}
		if len(lost) == 0 {
			continue
		}
		var list strings.Builder
		related := make([]int, len(lost))
		for i, r := range lost {
			related[i] = r.Line
			if i < maxListed {
				if i > 0 {
					list.WriteString(", ")
				}
				fmt.Fprintf(&list, "%q (line %d)", r.Text, r.Line)
			}
		}
		if len(lost) > maxListed {
			fmt.Fprintf(&list, " and %d more", len(lost)-maxListed)
		}
		l.out = append(l.out, Finding{
			Line: n.first.Line, Code: CodeNamedGroupDropsStarRules, Severity: Warning, Related: related,
			Message: fmt.Sprintf("%q has its own group, so it ignores every rule of \"User-agent: *\" and may fetch what these forbid: %s; repeat them in its group if they should apply to it",
				"User-agent: "+n.first.Value, list.String()),
		})
	}
}

// maxListed is how many dropped rules a message names; Related has all.
const maxListed = 10

// maxDropChecks bounds droppedStarRules: named agents times "*" Disallow
// rules. Real files are far below it.
const maxDropChecks = 1 << 20

// examplePath returns a path the pattern matches: its literal text with
// the wildcards matching nothing.
func examplePath(pattern string) string {
	p := strings.ReplaceAll(strings.TrimSuffix(pattern, "$"), "*", "")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

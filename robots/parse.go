package robots

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxBytes is how much of a robots.txt body Parse reads unless told
// otherwise: 500 KiB (512,000 bytes), the minimum RFC 9309 §2.5 requires
// crawlers to parse. Google stops at the same size.
const DefaultMaxBytes = 500 << 10

// Option changes how Parse and Lint read a file.
type Option func(*config)

type config struct {
	maxBytes    int
	usageLabels []string // for Lint: the categories of the usage vocabulary
}

// WithMaxBytes makes Parse read the first n bytes of the body instead of
// DefaultMaxBytes. RFC 9309 requires at least 500 KiB, so a smaller n is
// raised to DefaultMaxBytes: the limit can be raised, never lowered.
func WithMaxBytes(n int) Option {
	return func(c *config) {
		c.maxBytes = max(n, DefaultMaxBytes)
	}
}

func newConfig(opts []Option) config {
	c := config{maxBytes: DefaultMaxBytes}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// File is a parsed robots.txt. It is immutable and safe for concurrent
// use. Select the rules for a crawler with [File.Group].
type File struct {
	groups   []parsedGroup
	agents   []AgentLine // every user-agent line, in file order
	rules    []Rule      // every rule inside a group, in file order
	usage    []UsageRule // every Content-Usage rule inside a group
	sitemaps []Sitemap
	report   Report
}

// parsedGroup is one group as written: a run of user-agent lines and the
// records that follow until the next user-agent line after a rule.
type parsedGroup struct {
	agentsFrom, agentsTo int32 // index range in File.agents
	rulesFrom, rulesTo   int32 // index range in File.rules
	usageFrom, usageTo   int32 // index range in File.usage
	delay                time.Duration
	delayLine            int32 // 0: the group has no valid Crawl-delay
}

// AgentLine is one user-agent line of a group.
type AgentLine struct {
	// Line is the 1-based line number.
	Line int
	// Value is the line's value as written ("FooBot/1.2", "*").
	Value string
	// Token is the product token the value names ("FooBot"; with digits
	// as real files write them, "MJ12bot"); empty for "*" and for values
	// that name no crawler.
	Token string
}

// Rule is an Allow or Disallow line of a group.
type Rule struct {
	// Line is the 1-based line number in the file.
	Line int
	// Allow is true for Allow, false for Disallow.
	Allow bool
	// Text is the line as written, without its comment and surrounding
	// white space: "Disallow: /private/".
	Text string
	// Pattern is the path pattern after RFC 9309 §2.2.2 normalisation
	// (non-ASCII octets and the characters a URL carries only encoded
	// percent-encoded, unreserved characters decoded, hex digits
	// upper-case, a "$" that is not last encoded as the literal it is).
	// A value that starts with neither "/" nor "*" is kept as written and
	// matches no URL, as in Google's open-source matcher. Its length in
	// octets is the rule's priority.
	Pattern string
}

// Sitemap is a Sitemap line. Sitemap lines belong to no group.
type Sitemap struct {
	// URL is the value as written, or resolved by [File.ResolveSitemaps].
	URL string
	// Line is the 1-based line number.
	Line int
	// Relative is true when the value as written is not an absolute URL.
	Relative bool
}

// Report says how a file was read: what was skipped and why, and whether
// the body was cut at the size limit.
type Report struct {
	// Lines is the number of lines read (within the size limit).
	Lines int
	// Groups and Rules count the groups and the Allow/Disallow rules with a
	// non-empty value inside groups.
	Groups, Rules int
	// Skipped lists the lines that contributed nothing, in order.
	Skipped []SkippedLine
	// InvalidCrawlDelays lists Crawl-delay lines whose value was ignored.
	InvalidCrawlDelays []SkippedLine
	// Truncated is non-nil when the body was longer than the size limit.
	Truncated *Truncation
}

// SkippedLine is a line that Parse read and ignored.
type SkippedLine struct {
	Line int
	// Text is the line without its comment and surrounding white space.
	Text   string
	Reason SkipReason
}

// SkipReason says why a line was ignored.
type SkipReason string

const (
	// SkipUnparseable: no colon, and not exactly two words.
	SkipUnparseable SkipReason = "no field name and value"
	// SkipUnknownField: a field name heed does not know.
	SkipUnknownField SkipReason = "unknown field"
	// SkipOutsideGroup: a rule or Crawl-delay before any user-agent line.
	SkipOutsideGroup SkipReason = "before any user-agent line"
	// SkipEmptySitemap: a Sitemap line without a value.
	SkipEmptySitemap SkipReason = "empty sitemap value"
	// SkipEmptyUsage: a Content-Usage line without a value.
	SkipEmptyUsage SkipReason = "empty content-usage value"
	// SkipBadCrawlDelay: a Crawl-delay value that is not a non-negative
	// finite number of seconds (also listed in InvalidCrawlDelays).
	SkipBadCrawlDelay SkipReason = "invalid crawl-delay"
)

// Truncation describes the part of a body past the size limit.
type Truncation struct {
	// Limit is the number of bytes read.
	Limit int
	// BytesIgnored is the number of bytes after the limit.
	BytesIgnored int
	// Line is the line the limit fell in; when LineCut, that line was
	// dropped, otherwise it is the first line not read.
	Line    int
	LineCut bool
}

// agentsOf returns the user-agent lines of a parsed group.
func (f *File) agentsOf(pg *parsedGroup) []AgentLine {
	return f.agents[pg.agentsFrom:pg.agentsTo]
}

// lineEvent is what the parser tells Lint about each line.
type lineEvent struct {
	num     int
	text    string // without comment, trimmed
	comment bool   // the line has a comment
	name    string // field name as written
	value   string
	field   field
	typo    bool
	noColon bool
	skip    SkipReason
	// groupIndex is the index of the group the line belongs to, -1 before
	// the first user-agent line.
	groupIndex int
	// startsGroup is true for a user-agent line that opens a new group.
	startsGroup bool
}

// Parse reads a robots.txt body. It never fails: every line is read on its
// own, and a line that makes no sense is skipped and listed in the
// [Report]. Only the first DefaultMaxBytes (or [WithMaxBytes]) bytes are
// read; a line cut by the limit is dropped. Parse does no I/O and keeps no
// reference to body.
func Parse(body []byte, opts ...Option) *File {
	return parse(body, newConfig(opts), nil)
}

type parser struct {
	f        *File
	cur      int  // index of the current group, -1 before any user-agent line
	inAgents bool // the last group record was a user-agent line
}

func parse(body []byte, cfg config, visit func(*lineEvent)) *File {
	f := &File{}
	data := body
	if len(data) > cfg.maxBytes {
		data = data[:cfg.maxBytes]
	}
	// One conversion; every Text, Value and most Patterns are substrings.
	s := string(data)
	s = skipBOM(s)
	// Most lines of a large file are rules: size the rule slice for the
	// worst case once instead of regrowing it (and copying its pointers
	// under the write barrier) a few dozen times, then trim it.
	f.rules = make([]Rule, 0, strings.Count(s, "\n")+strings.Count(s, "\r")+1)
	defer func() {
		if cap(f.rules) > len(f.rules)+len(f.rules)/4+64 {
			f.rules = slices.Clone(f.rules)
		}
	}()
	p := parser{f: f, cur: -1}
	sc := lineScanner{s: s}
	num := 0
	var ev lineEvent
	for {
		line, terminated, ok := sc.next()
		if !ok {
			break
		}
		num++
		if !terminated && len(data) < len(body) && !isLineEnd(body[len(data)]) {
			// The limit cut this line; half a rule is worse than none.
			f.report.Truncated = &Truncation{Limit: len(data), BytesIgnored: len(body) - len(data), Line: num, LineCut: true}
			num--
			break
		}
		ev = lineEvent{num: num}
		p.line(&ev, line)
		if visit != nil {
			ev.groupIndex = p.cur
			visit(&ev)
		}
	}
	f.report.Lines = num
	if len(data) < len(body) && f.report.Truncated == nil {
		f.report.Truncated = &Truncation{Limit: len(data), BytesIgnored: len(body) - len(data), Line: num + 1}
	}
	f.report.Groups = len(f.groups)
	f.report.Rules = len(f.rules)
	return f
}

func isLineEnd(c byte) bool { return c == '\n' || c == '\r' }

// skipBOM drops a UTF-8 byte-order mark, or the start of one: Google skips
// a partial mark too, and a file that starts with one is not otherwise
// meaningful.
func skipBOM(s string) string {
	const bom = "\xEF\xBB\xBF"
	i := 0
	for i < len(bom) && i < len(s) && s[i] == bom[i] {
		i++
	}
	return s[i:]
}

func (p *parser) line(ev *lineEvent, raw string) {
	if h := strings.IndexByte(raw, '#'); h >= 0 {
		raw = raw[:h]
		ev.comment = true
	}
	text := trimSpace(raw)
	num := ev.num
	ev.text = text
	if text == "" {
		return
	}
	name, value, noColon, ok := splitLine(text)
	ev.name, ev.value, ev.noColon = name, value, noColon
	if !ok {
		ev.field = fieldInvalid
		p.skip(ev, SkipUnparseable)
		return
	}
	ev.field, ev.typo = lookupField(name)
	f := p.f
	switch ev.field {
	case fieldUnknown:
		p.skip(ev, SkipUnknownField)
	case fieldUserAgent:
		if p.cur < 0 || !p.inAgents {
			na, nr, nu := int32(len(f.agents)), int32(len(f.rules)), int32(len(f.usage))
			f.groups = append(f.groups, parsedGroup{agentsFrom: na, agentsTo: na, rulesFrom: nr, rulesTo: nr, usageFrom: nu, usageTo: nu})
			p.cur = len(f.groups) - 1
			ev.startsGroup = true
		}
		p.inAgents = true
		g := &f.groups[p.cur]
		_, tok := agentToken(value)
		f.agents = append(f.agents, AgentLine{Line: num, Value: value, Token: tok})
		g.agentsTo = int32(len(f.agents))
	case fieldAllow, fieldDisallow:
		if p.cur < 0 {
			p.skip(ev, SkipOutsideGroup)
			return
		}
		// Even an empty rule ends the run of user-agent lines.
		p.inAgents = false
		g := &f.groups[p.cur]
		if value == "" {
			return // an empty value is no rule: it matches nothing
		}
		f.rules = append(f.rules, Rule{
			Line:    num,
			Allow:   ev.field == fieldAllow,
			Text:    text,
			Pattern: normalisePattern(value),
		})
		g.rulesTo = int32(len(f.rules))
	case fieldContentUsage:
		if p.cur < 0 {
			p.skip(ev, SkipOutsideGroup)
			return
		}
		// A Content-Usage line is a rule (draft-ietf-aipref-attach-05
		// §4: "rule =/ content-usage"): it ends the run of user-agent
		// lines like Allow and Disallow.
		p.inAgents = false
		if value == "" {
			p.skip(ev, SkipEmptyUsage)
			return
		}
		f.usage = append(f.usage, newUsageRule(num, text, value))
		f.groups[p.cur].usageTo = int32(len(f.usage))
	case fieldCrawlDelay:
		if p.cur < 0 {
			p.skip(ev, SkipOutsideGroup)
			return
		}
		d, why := parseCrawlDelay(value)
		if why != "" {
			f.report.InvalidCrawlDelays = append(f.report.InvalidCrawlDelays, SkippedLine{Line: num, Text: text, Reason: SkipReason(why)})
			p.skip(ev, SkipBadCrawlDelay)
			return
		}
		if g := &f.groups[p.cur]; g.delayLine == 0 {
			g.delay, g.delayLine = d, int32(num)
		}
	case fieldSitemap:
		if value == "" {
			p.skip(ev, SkipEmptySitemap)
			return
		}
		f.sitemaps = append(f.sitemaps, Sitemap{URL: value, Line: num, Relative: !isAbsoluteURL(value)})
	}
}

func (p *parser) skip(ev *lineEvent, why SkipReason) {
	ev.skip = why
	p.f.report.Skipped = append(p.f.report.Skipped, SkippedLine{Line: ev.num, Text: ev.text, Reason: why})
}

// maxCrawlDelaySeconds keeps a Crawl-delay inside time.Duration; longer
// ones saturate at the longest Duration.
const maxCrawlDelaySeconds = float64(1<<63-1) / float64(time.Second)

// parseCrawlDelay reads a Crawl-delay value: a non-negative decimal number
// of seconds, fractions allowed ("0.5"). Exponents, hex, "NaN" and "Inf"
// are refused because no site owner means them. why is empty when valid.
func parseCrawlDelay(v string) (d time.Duration, why string) {
	if v == "" {
		return 0, "empty value"
	}
	digits, dots := 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.':
			dots++
		case c == '-' && i == 0:
			return 0, "negative"
		default:
			return 0, "not a number of seconds"
		}
	}
	if digits == 0 || dots > 1 {
		return 0, "not a number of seconds"
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || secs >= maxCrawlDelaySeconds {
		// A number of seconds past what a Duration holds still asks for
		// a very long delay: it saturates, so that a larger request never
		// means faster crawling than a smaller one over the same cap.
		return time.Duration(math.MaxInt64), ""
	}
	return time.Duration(secs * float64(time.Second)), ""
}

// lineScanner splits a body into lines ended by CR, LF or CRLF. It
// remembers where the next CR and LF are, so that a file using only one of
// them is still scanned in linear time.
type lineScanner struct {
	s      string
	pos    int
	nextLF int // index of the next '\n' at or after pos; len(s) if none
	nextCR int
	primed bool
}

// next returns the next line without its end, whether a line end followed
// it, and false when the body is exhausted.
func (sc *lineScanner) next() (line string, terminated, ok bool) {
	if sc.pos >= len(sc.s) {
		return "", false, false
	}
	if !sc.primed || sc.nextLF < sc.pos {
		sc.nextLF = indexFrom(sc.s, sc.pos, '\n')
	}
	if !sc.primed || sc.nextCR < sc.pos {
		sc.nextCR = indexFrom(sc.s, sc.pos, '\r')
	}
	sc.primed = true
	end := min(sc.nextLF, sc.nextCR)
	line = sc.s[sc.pos:end]
	switch {
	case end == len(sc.s):
		sc.pos = end
		return line, false, true
	case sc.s[end] == '\r' && end+1 < len(sc.s) && sc.s[end+1] == '\n':
		sc.pos = end + 2
	default:
		sc.pos = end + 1
	}
	return line, true, true
}

func indexFrom(s string, from int, c byte) int {
	i := strings.IndexByte(s[from:], c)
	if i < 0 {
		return len(s)
	}
	return from + i
}

package pagerobots

import (
	"fmt"
	"strings"
)

// Source says where a directive was said.
type Source string

const (
	// SourceMeta: a <meta name="robots"> or <meta name="TOKEN"> element.
	SourceMeta Source = "meta"
	// SourceHeader: an X-Robots-Tag response header.
	SourceHeader Source = "header"
)

// HeaderName is the response header this package reads.
const HeaderName = "X-Robots-Tag"

// MaxStatements bounds the meta elements and header lines read from one
// response, so a hostile page cannot grow the result without bound.
const MaxStatements = 64

// Known lists the directives heed knows, lower-case, and whether each
// takes a value after a colon. A new directive is one line here.
var Known = map[string]bool{
	"all":               false,
	"index":             false,
	"follow":            false,
	"noindex":           false,
	"nofollow":          false,
	"none":              false, // noindex and nofollow
	"noarchive":         false,
	"nocache":           false, // Bing's noarchive
	"nosnippet":         false,
	"noimageindex":      false,
	"notranslate":       false,
	"indexifembedded":   false,
	"noai":              false,
	"noimageai":         false,
	"unavailable_after": true,
	"max-snippet":       true,
	"max-image-preview": true,
	"max-video-preview": true,
}

// implied lists the directives another one stands for.
var implied = map[string][]string{
	"none":    {"noindex", "nofollow"},
	"nocache": {"noarchive"},
}

// Directive is one directive as a page said it, with its evidence.
type Directive struct {
	// Name is the directive, lower-cased ("noindex", "unavailable_after").
	Name string `json:"name"`
	// Value is what follows the colon of a directive that takes one
	// ("25 Jun 2030 15:00:00 PST"), as written.
	Value string `json:"value,omitempty"`
	// Known is false for a directive outside [Known].
	Known bool `json:"known"`
	// Source, Line (meta only; 1-based line of the element in the
	// document) and Agent (the product token the statement named, "" for
	// every crawler) say where it was said.
	Source Source `json:"source"`
	Line   int    `json:"line,omitempty"`
	Agent  string `json:"agent,omitempty"`
	// Statement is the whole statement as written: for a meta element
	// `name="robots" content="noindex, nofollow"`, for a header
	// `X-Robots-Tag: ExampleBot: noindex`.
	Statement string `json:"statement"`
}

// String describes the directive and where it was said, for logs:
// `"nofollow" in meta name="robots" content="nofollow" (line 4)`.
func (d Directive) String() string {
	s := fmt.Sprintf("%q in %s", d.Name, d.Statement)
	if d.Line > 0 {
		s += fmt.Sprintf(" (line %d)", d.Line)
	}
	return s
}

// Directives is what a response said to one crawler, in the order said:
// header lines first, then meta elements in document order.
type Directives struct {
	List []Directive `json:"directives,omitempty"`
}

// Add appends the directives of other.
func (ds *Directives) Add(other Directives) {
	ds.List = append(ds.List, other.List...)
}

// Find returns the first directive that says name, directly or through
// one that implies it ("none" says "noindex" and "nofollow").
func (ds Directives) Find(name string) (Directive, bool) {
	name = strings.ToLower(name)
	for _, d := range ds.List {
		if d.Name == name {
			return d, true
		}
		for _, n := range implied[d.Name] {
			if n == name {
				return d, true
			}
		}
	}
	return Directive{}, false
}

// Has reports whether the response says name (see Find).
func (ds Directives) Has(name string) bool {
	_, ok := ds.Find(name)
	return ok
}

// Unknown returns the directives outside [Known], for reporting.
func (ds Directives) Unknown() []Directive {
	var out []Directive
	for _, d := range ds.List {
		if !d.Known {
			out = append(out, d)
		}
	}
	return out
}

// Names returns the distinct directive names, in order, for display.
func (ds Directives) Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range ds.List {
		if !seen[d.Name] {
			seen[d.Name] = true
			out = append(out, d.Name)
		}
	}
	return out
}

// ParseMeta reads one meta element for the crawler whose product token is
// token: name is its name attribute, content its content attribute, line
// its line in the document (0 if unknown). It returns nothing when the
// element is not a robots element or names another crawler.
func ParseMeta(token, name, content string, line int) Directives {
	name = strings.TrimSpace(name)
	agent := ""
	switch {
	case strings.EqualFold(name, "robots"):
	case token != "" && strings.EqualFold(name, token):
		agent = name
	default:
		return Directives{}
	}
	stmt := fmt.Sprintf("meta name=%q content=%q", name, content)
	var ds Directives
	for _, part := range splitList(content) {
		ds.List = append(ds.List, directive(part, SourceMeta, line, agent, stmt))
	}
	return ds
}

// ParseHeader reads the X-Robots-Tag field lines of a response (as
// http.Header.Values returns them) for the crawler whose product token is
// token. A line may hold several comma-separated directives; a part
// "TOKEN: directive" that does not start with a directive taking a value
// names the crawler for itself and the rest of the line. Parts naming
// other crawlers are skipped.
func ParseHeader(token string, values []string) Directives {
	var ds Directives
	for i, v := range values {
		if i >= MaxStatements {
			break
		}
		stmt := HeaderName + ": " + v
		agent, forUs := "", true
		parts := splitList(v)
		for j := 0; j < len(parts); j++ {
			part := parts[j]
			if a, rest, ok := agentPrefix(part); ok {
				agent, part = a, rest
				forUs = token != "" && strings.EqualFold(a, token)
				if part == "" {
					continue
				}
			}
			if !forUs {
				continue
			}
			d := directive(part, SourceHeader, 0, agent, stmt)
			// An RFC 850 date has a comma after the weekday.
			if d.Name == "unavailable_after" && isWeekday(d.Value) && j+1 < len(parts) {
				j++
				d.Value += ", " + parts[j]
			}
			ds.List = append(ds.List, d)
		}
	}
	return ds
}

// splitList splits a comma-separated list, trimming white space and
// dropping empty parts.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// agentPrefix splits "TOKEN: rest" when TOKEN is not a known directive
// and is made of a product token's characters (digits allowed, as real
// agents have them).
func agentPrefix(part string) (agent, rest string, ok bool) {
	c := strings.IndexByte(part, ':')
	if c <= 0 {
		return "", "", false
	}
	name := strings.TrimSpace(part[:c])
	if _, known := Known[strings.ToLower(name)]; known {
		return "", "", false // "unavailable_after: date", "max-snippet: 20"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(part[c+1:]), name != ""
}

func directive(part string, src Source, line int, agent, stmt string) Directive {
	name, value := part, ""
	if c := strings.IndexByte(part, ':'); c >= 0 {
		name, value = strings.TrimSpace(part[:c]), strings.TrimSpace(part[c+1:])
	}
	name = strings.ToLower(name)
	_, known := Known[name]
	if !known && value != "" || name == "" {
		name, value = strings.ToLower(part), ""
	}
	return Directive{Name: name, Value: value, Known: known, Source: src, Line: line, Agent: agent, Statement: stmt}
}

var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue", "wed", "thu", "fri", "sat", "sun"}

func isWeekday(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, w := range weekdays {
		if s == w {
			return true
		}
	}
	return false
}

package aipref

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/dunglas/httpsfv"
)

// HeaderName is the response header of draft-ietf-aipref-attach-05 §3.
const HeaderName = "Content-Usage"

// Value is the preference for one category.
type Value uint8

const (
	// Unknown: no statement says y or n for the category.
	Unknown Value = iota
	// Allow: the Token y.
	Allow
	// Disallow: the Token n.
	Disallow
)

// String returns "unknown", "y" or "n".
func (v Value) String() string {
	switch v {
	case Allow:
		return "y"
	case Disallow:
		return "n"
	}
	return "unknown"
}

// Preferences is one statement processed: a Value per category label of
// [Categories]; a label not in the map is Unknown.
type Preferences map[string]Value

// Get returns the preference for label.
func (p Preferences) Get(label string) Value { return p[label] }

// Parse processes a statement of preference (vocab §6.6). It never fails:
// a statement that does not parse leaves every category Unknown; [Check]
// says why.
func Parse(statement string) Preferences {
	p, _ := parse([]string{statement})
	return p
}

func parse(lines []string) (Preferences, *httpsfv.Dictionary) {
	p := Preferences{}
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		return p, nil
	}
	for _, c := range Categories {
		m, ok := d.Get(c.Label)
		if !ok {
			continue
		}
		it, ok := m.(httpsfv.Item)
		if !ok {
			continue
		}
		switch it.Value {
		case httpsfv.Token("y"):
			p[c.Label] = Allow
		case httpsfv.Token("n"):
			p[c.Label] = Disallow
		}
	}
	return p, d
}

// Check returns what a reader of the statement should know, one sentence
// each: that it does not parse as a Structured Fields dictionary (so every
// category is unknown), that a key is not in the vocabulary (ignored), or
// that a known category's value is not the Token y or n (unknown). None
// means the statement reads as written.
func Check(statement string) []string {
	d, err := httpsfv.UnmarshalDictionary([]string{statement})
	if err != nil {
		return []string{fmt.Sprintf("%q is not a Structured Fields dictionary (RFC 9651): %v; every preference in it is unknown", statement, err)}
	}
	var out []string
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		if _, known := Lookup(k); !known {
			out = append(out, fmt.Sprintf("%q is not a category of the vocabulary (%s); ignored", k, strings.Join(Labels(), ", ")))
			continue
		}
		it, ok := m.(httpsfv.Item)
		if tok, isTok := it.Value.(httpsfv.Token); !ok || !isTok || tok != "y" && tok != "n" {
			out = append(out, fmt.Sprintf("the value of %q is not y or n; the preference is unknown", k))
		}
	}
	return out
}

// Source says where a statement came from.
type Source string

const (
	// SourceRobots: a Content-Usage rule of robots.txt.
	SourceRobots Source = "robots.txt"
	// SourceHeader: a Content-Usage response header.
	SourceHeader Source = "header"
)

// Statement is one statement of preference with its evidence.
type Statement struct {
	Source Source `json:"source"`
	// URL is the robots.txt URL, or the URL of the response whose header
	// it was.
	URL string `json:"url,omitempty"`
	// Line is the robots.txt line (0 for a header).
	Line int `json:"line,omitempty"`
	// Text is the rule as written ("Content-Usage: /ai/ train-ai=n") or
	// the header as received ("Content-Usage: train-ai=n").
	Text string `json:"text"`
	// Prefs is the statement processed.
	Prefs Preferences `json:"-"`
}

// String describes the statement: `robots.txt line 4 "Content-Usage:
// train-ai=n"` or `header "Content-Usage: train-ai=n"`.
func (s Statement) String() string {
	if s.Source == SourceRobots {
		return fmt.Sprintf("%s line %d %q", s.URL, s.Line, s.Text)
	}
	return fmt.Sprintf("header %q", s.Text)
}

// FromHeader returns the statement of h's Content-Usage field lines, if
// it has any: the lines are one dictionary (RFC 9651 §4.2, lines joined
// with commas), so a key repeated on a later line wins.
func FromHeader(h http.Header, url string) (Statement, bool) {
	lines := h.Values(HeaderName)
	if len(lines) == 0 {
		return Statement{}, false
	}
	p, _ := parse(lines)
	return Statement{Source: SourceHeader, URL: url, Text: HeaderName + ": " + strings.Join(lines, ", "), Prefs: p}, true
}

// Decision is the combined preference for one category, with the
// statement that decided it (nil when Unknown).
type Decision struct {
	Label string
	Value Value
	By    *Statement
}

// String reads "train-ai=n by header \"Content-Usage: train-ai=n\"" or
// "train-ai unknown".
func (d Decision) String() string {
	if d.By == nil || d.Value == Unknown {
		return d.Label + " unknown"
	}
	return fmt.Sprintf("%s=%s by %s", d.Label, d.Value, d.By)
}

// Combine merges the statements for one category (vocab §5.1): the first
// statement saying Disallow decides, else the first saying Allow, else the
// result is Unknown.
func Combine(label string, stmts ...Statement) Decision {
	d := Decision{Label: label}
	for i := range stmts {
		switch stmts[i].Prefs.Get(label) {
		case Disallow:
			return Decision{Label: label, Value: Disallow, By: &stmts[i]}
		case Allow:
			if d.Value == Unknown {
				d.Value, d.By = Allow, &stmts[i]
			}
		}
	}
	return d
}

package robots

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Content-Usage rules (draft-ietf-aipref-attach-05 §4, followed as of
// github.com/ietf-wg-aipref/drafts commit 7ca0afc, 2026-08-19): a rule of
// a group, "Content-Usage: [path-pattern SP] preferences", that attaches a
// statement of AI usage preference to the paths it matches. This package
// finds the rules that decide for a URL; the statement itself (a
// Structured Fields dictionary such as "train-ai=n") is read by heed's
// aipref package, which owns the vocabulary.

// UsageRule is a Content-Usage line of a group.
type UsageRule struct {
	// Line is the 1-based line number.
	Line int
	// Text is the line as written, without its comment.
	Text string
	// Path is the path as written; empty when the rule has none and so
	// applies to every path. A value has a path when it starts with "/"
	// (the draft's rule); the path ends at the first space or tab.
	Path string
	// Pattern is Path normalised as an Allow/Disallow pattern; its length
	// in octets is the rule's priority (0 without a path).
	Pattern string
	// Preference is the statement of preference as written.
	Preference string
}

func newUsageRule(line int, text, value string) UsageRule {
	r := UsageRule{Line: line, Text: text, Preference: value}
	if value[0] == '/' {
		end := strings.IndexAny(value, " \t")
		if end < 0 {
			r.Path, r.Preference = value, ""
		} else {
			r.Path, r.Preference = value[:end], trimSpace(value[end:])
		}
		r.Pattern = normalisePattern(r.Path)
	}
	return r
}

// UsageVerdict is which Content-Usage rules apply to one URL.
type UsageVerdict struct {
	// Crawlable is the Allow/Disallow verdict's answer. Preferences
	// apply only to URLs that may be crawled: when false, Rules is empty.
	Crawlable bool
	// Rules are the deciding rules: those whose path matches with the
	// most octets, several when their paths are identical (their
	// preferences are then combined, the most restrictive winning, by
	// the caller), in file order. Empty when no rule applies.
	Rules []UsageRule
	// Group is how the group was chosen.
	Group *GroupMatch
}

// UsageRules returns the group's Content-Usage rules in file order.
func (g *Group) UsageRules() []UsageRule {
	return append([]UsageRule(nil), g.usage...)
}

// Usage returns the Content-Usage rules that decide the usage preference
// of pathAndQuery (as for [Group.Decide]): the longest matching path wins,
// with the same matching and normalisation as Allow and Disallow; a rule
// without a path matches every path with priority 0; rules with identical
// paths are all returned.
func (g *Group) Usage(pathAndQuery string) UsageVerdict {
	v := UsageVerdict{Group: &g.match, Crawlable: g.Decide(pathAndQuery).Allowed}
	if !v.Crawlable || len(g.usage) == 0 {
		return v
	}
	s := pathAndQuery
	if s == "" || s[0] == '?' {
		s = "/" + s
	}
	s = normalise(s)
	best := -1
	for i := range g.usage {
		r := &g.usage[i]
		if r.Path != "" && !g.usageM[i].match(s) {
			continue
		}
		switch n := len(r.Pattern); {
		case n > best:
			best = n
			v.Rules = append(v.Rules[:0], *r)
		case n == best && r.Pattern == v.Rules[0].Pattern:
			v.Rules = append(v.Rules, *r)
		}
	}
	return v
}

// WithUsageLabels gives Lint the category labels of the usage vocabulary
// (heed's aipref.Labels()), so that it can report a Content-Usage key
// outside it. Without it, Lint checks only the syntax and the y/n values.
func WithUsageLabels(labels ...string) Option {
	return func(c *config) { c.usageLabels = append([]string(nil), labels...) }
}

// checkUsage returns what is wrong with a Content-Usage rule's value, one
// sentence each (see CodeInvalidContentUsage).
func checkUsage(r UsageRule, labels []string) []string {
	if r.Preference == "" {
		return []string{"has a path but no preference: write one after the path, such as \"" + r.Path + " train-ai=n\""}
	}
	d, err := httpsfv.UnmarshalDictionary([]string{r.Preference})
	if err != nil {
		msg := fmt.Sprintf("preference %q is not a Structured Fields dictionary (RFC 9651): %v; crawlers read every preference in it as unknown", r.Preference, err)
		if r.Path == "" && r.Preference[0] != '/' && strings.ContainsAny(r.Preference, " \t") {
			msg += "; a path must start with \"/\""
		}
		return []string{msg}
	}
	var out []string
	for _, k := range d.Names() {
		if len(labels) > 0 && !slices.Contains(labels, k) {
			out = append(out, fmt.Sprintf("%q is not a category of the usage vocabulary (%s); crawlers ignore it", k, strings.Join(labels, ", ")))
			continue
		}
		m, _ := d.Get(k)
		it, ok := m.(httpsfv.Item)
		if tok, isTok := it.Value.(httpsfv.Token); !ok || !isTok || tok != "y" && tok != "n" {
			out = append(out, fmt.Sprintf("the value of %q is not y or n, so the preference is unknown", k))
		}
	}
	return out
}

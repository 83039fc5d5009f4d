package middleware

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/skiplog"
)

// UsageStatements returns the statements of AI usage preference that
// apply to u under the authority's robots.txt: the Content-Usage rules of
// heed's group that decide u's path (several when their paths are
// identical), none when robots.txt is not available or disallows u
// (preferences apply only to URLs that may be crawled, per
// draft-ietf-aipref-attach-05 §4.1).
func UsageStatements(e *RobotsEntry, u *url.URL) []aipref.Statement {
	if e == nil || e.State != RobotsAvailable || e.Group == nil {
		return nil
	}
	v := e.Group.Usage(u.RequestURI())
	out := make([]aipref.Statement, 0, len(v.Rules))
	for _, r := range v.Rules {
		out = append(out, aipref.Statement{Source: aipref.SourceRobots, URL: e.URL, Line: r.Line, Text: r.Text, Prefs: aipref.Parse(r.Preference)})
	}
	return out
}

// DecideUsage is heed's one reading of a URL's AI usage preference for a
// category (vocab label such as "train-ai"): the robots.txt statements of
// UsageStatements and, when h is not nil, the response's Content-Usage
// header, combined as draft-ietf-aipref-vocab-07 §5.1 says (any n wins,
// then any y, else unknown). The crawl, the sitemap inventory (h nil: it
// fetches no page) and `heed robots check --purpose` all decide through
// it, or through UsageDecisions for every category at once.
func DecideUsage(e *RobotsEntry, u *url.URL, h http.Header, label string) aipref.Decision {
	return aipref.Combine(label, usageStatements(e, u, h)...)
}

// UsageDecisions is DecideUsage for every category of the vocabulary
// (aipref.Categories), in its order, from one reading of u's robots.txt
// rules and of the header: a page's whole preference for the cost of one
// category's. The crawl reads every page's this way.
func UsageDecisions(e *RobotsEntry, u *url.URL, h http.Header) []aipref.Decision {
	stmts := usageStatements(e, u, h)
	out := make([]aipref.Decision, len(aipref.Categories))
	for i, c := range aipref.Categories {
		out[i] = aipref.Combine(c.Label, stmts...)
	}
	return out
}

// usageStatements returns the statements DecideUsage combines: robots.txt's
// (UsageStatements), then the header's when h is not nil.
func usageStatements(e *RobotsEntry, u *url.URL, h http.Header) []aipref.Statement {
	stmts := UsageStatements(e, u)
	if h != nil {
		if s, ok := aipref.FromHeader(h, u.String()); ok {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// UsageEvidence returns the skip-log evidence of a decision that said n.
func UsageEvidence(d aipref.Decision) *skiplog.Usage {
	if d.By == nil {
		return nil
	}
	ev := &skiplog.Usage{Purpose: d.Label, Source: string(d.By.Source), Line: d.By.Line, Rule: d.By.Text}
	if d.By.Source == aipref.SourceRobots {
		ev.URL = d.By.URL
	}
	return ev
}

// UsageSummary is the robots.txt usage preference of u in one cell, as
// the sitemap inventory's usage column writes it: every category of the
// vocabulary that robots.txt gives a y or an n, with the line that
// decided ("train-ai=n (line 4); search=y (line 9)"), decided by
// UsageDecisions from robots.txt alone; "" when none applies.
func UsageSummary(e *RobotsEntry, u *url.URL) string {
	var parts []string
	for _, d := range UsageDecisions(e, u, nil) {
		if d.Value != aipref.Unknown && d.By != nil {
			parts = append(parts, fmt.Sprintf("%s=%s (line %d)", d.Label, d.Value, d.By.Line))
		}
	}
	return strings.Join(parts, "; ")
}

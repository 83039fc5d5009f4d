package middleware

import (
	"fmt"
	"strings"

	"github.com/heedcrawl/heed/skiplog"
)

// RobotsReport is a RobotsDecision as heed reports it to a person or a
// program: the verdict, the reason, the deciding rule and group, and the
// robots.txt that decided, as plain fields with one JSON key each. It is
// the one shape of a URL's verdict in heed's outputs: a `heed robots
// check --json` line, a verdict of the robots.txt tester and a row of
// the sitemap inventory (with one per agent when it checks several)
// embed it beside fields of their own, the URL first among them. Make
// it with RobotsDecision.Report, so that every output says the same
// thing of the same decision.
type RobotsReport struct {
	// Agent is the product token the verdict is for, when an output
	// reports several (the inventory's per-agent verdicts); "" where the
	// output has one agent.
	Agent string `json:"agent,omitempty"`
	// Allowed says the URL may be fetched. When it may not, Reason says
	// why: robots-disallow, robots-unreachable, or a reason of the
	// output's own (invalid-url, sitemap-scope) for a URL no robots.txt
	// was asked about.
	Allowed bool           `json:"allowed"`
	Reason  skiplog.Reason `json:"reason,omitempty"`
	// Line and Rule are the deciding robots.txt line and the rule as
	// written (an Allow rule too); 0 and "" when no rule matched. Group
	// lists the user-agent values of the group that applied and
	// GroupLines their lines; empty when no group applied. Implicit says
	// the URL is /robots.txt, which RFC 9309 §2.2.2 always allows.
	Line       int      `json:"line,omitempty"`
	Rule       string   `json:"rule,omitempty"`
	Group      []string `json:"group,omitempty"`
	GroupLines []int    `json:"group_lines,omitempty"`
	Implicit   bool     `json:"implicit,omitempty"`
	// RobotsURL, RobotsStatus and RobotsState ("available",
	// "unavailable", "unreachable") are the robots.txt that decided: its
	// URL (a file's path when given as a file), the HTTP status of its
	// fetch (0 when no response came) and what that status means.
	RobotsURL    string `json:"robots_url,omitempty"`
	RobotsStatus int    `json:"robots_status,omitempty"`
	RobotsState  string `json:"robots_state,omitempty"`
}

// Report returns the decision as heed reports it. The rule and group
// are those of the file's rules, so they are left empty when the file
// was unavailable or unreachable and its state decided.
func (d RobotsDecision) Report() RobotsReport {
	r := RobotsReport{Allowed: d.Allowed, Reason: d.Reason, Implicit: d.Verdict.Implicit}
	if e := d.Entry; e != nil {
		r.RobotsURL, r.RobotsStatus, r.RobotsState = e.URL, e.Status, e.State.String()
	}
	if v := d.Verdict.Rule; v != nil {
		r.Line, r.Rule = v.Line, v.Text
	}
	if g := d.Verdict.Group; g != nil {
		r.Group, r.GroupLines = g.Values(), g.Lines()
	}
	return r
}

// Outcome is the verdict in one word: "allowed", or the reason the URL
// may not be fetched (robots-disallow, robots-unreachable, ...).
func (r RobotsReport) Outcome() string {
	if r.Allowed {
		return "allowed"
	}
	return string(r.Reason)
}

// Evidence is the deciding rule in one line, "line 4: Disallow: /x
// (group googlebot)"; "" when no rule decided.
func (r RobotsReport) Evidence() string {
	if r.Line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d: %s (group %s)", r.Line, r.Rule, strings.Join(r.Group, " "))
}

// Package pagepolicy is heed's declared policy for what a site says
// outside robots.txt (DESIGN invariant 11): page directives (meta robots,
// X-Robots-Tag, read by package pagerobots) and AI usage preferences
// (Content-Usage, decided by middleware.DecideUsage). It turns what a
// page said into the exclusions the policy makes, each one a skip-log
// record with its evidence, as a robots.txt rule is:
//
//   - nofollow (honoured unless IgnoreNofollow): the links of a page that
//     says nofollow are not followed; each one gets a nofollow record
//     unless the crawl reaches it another way (see Held);
//   - rel="nofollow" (with RelNofollow): a link marked so is not
//     followed either, with its own reason, rel-nofollow;
//   - Respect (noindex, ...): a page that says one of them is fetched,
//     its items are not exported, and the page gets one page-directive
//     record;
//   - Purposes (train-ai, ...): a page whose combined usage preference is
//     n for a declared purpose is fetched, its items are not exported,
//     and it gets one usage-preference record.
//
// Links carries the policy through a crawl: Unfollow decides and holds
// each link a page leaves unfollowed, Admission (the frontier's
// admission) refuses a held link with its record when the crawl ends,
// and Flush settles the rest, so that a held link ends as a duplicate of a
// URL the crawl reached another way or with exactly one record. Usage
// reads a page's usage preference for every category of the vocabulary.
//
// The package decides and holds; it does not fetch, parse or write: the
// crawler reads the signals of each response, asks the Policy (or Links),
// and writes the records through the skip log it gives Links. Its limits:
// Held keeps at most MaxHeld links; a link over the limit has its record
// written at once, and may then also be fetched if reached another way.
package pagepolicy

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

// Policy is what a crawl honours of a page's signals. The zero Policy
// honours nofollow and nothing else.
type Policy struct {
	// IgnoreNofollow follows the links of pages that say nofollow.
	IgnoreNofollow bool
	// RelNofollow leaves links marked rel="nofollow" unfollowed.
	RelNofollow bool
	// Respect names page directives (pagerobots.Known) whose pages keep
	// their items out of the exporters, lower case.
	Respect []string
	// Purposes are usage categories (aipref.Categories labels) a page
	// whose site says n to keeps its items out of the exporters.
	Purposes []string
}

// Check refuses a directive outside pagerobots.Known and a purpose
// outside the usage vocabulary.
func (p *Policy) Check() error {
	for _, d := range p.Respect {
		if _, ok := pagerobots.Known[d]; !ok {
			return fmt.Errorf("%q is not a page directive heed knows", d)
		}
	}
	for _, l := range p.Purposes {
		if _, ok := aipref.Lookup(l); !ok {
			return fmt.Errorf("%q is not a usage category (%s)", l, strings.Join(aipref.Labels(), ", "))
		}
	}
	return nil
}

// Withheld returns the record that keeps the items of the page req
// fetched out of the exporters, or nil: a declared purpose the site said
// n to (in usage, the page's decisions), then a respected directive.
func (p *Policy) Withheld(req *frontier.Request, d pagerobots.Directives, usage []aipref.Decision) *skiplog.Record {
	base := skiplog.Record{URL: req.URL, Authority: req.Authority(), Depth: req.Depth, Referrer: req.Referrer}
	for _, purpose := range p.Purposes {
		for _, u := range usage {
			if u.Label == purpose && u.Value == aipref.Disallow {
				rec := base
				rec.Reason, rec.Usage = skiplog.UsagePreference, middleware.UsageEvidence(u)
				rec.Detail = "fetched; items not exported: the site's usage preference is " + purpose + "=n"
				return &rec
			}
		}
	}
	for _, name := range p.Respect {
		if dir, ok := d.Find(name); ok {
			rec := base
			rec.Reason, rec.Directive = skiplog.PageDirective, Evidence(req.URL, dir)
			rec.Detail = "fetched; items not exported: the page says " + name
			return &rec
		}
	}
	return nil
}

// Unfollowed returns the record of link, found on the page pageURL whose
// directives are d, when the policy leaves it unfollowed, or nil. rel is
// the link's rel attribute when it was followed from its element.
func (p *Policy) Unfollowed(pageURL string, d pagerobots.Directives, link *frontier.Request, rel string) *skiplog.Record {
	var rec *skiplog.Record
	if !p.IgnoreNofollow {
		if dir, ok := d.Find("nofollow"); ok {
			rec = &skiplog.Record{Reason: skiplog.Nofollow, Directive: Evidence(pageURL, dir)}
		}
	}
	if rec == nil && p.RelNofollow && slices.Contains(strings.Fields(strings.ToLower(rel)), "nofollow") {
		rec = &skiplog.Record{Reason: skiplog.RelNofollow, Directive: &skiplog.Directive{
			Page: pageURL, Source: "link", Directive: "nofollow", Statement: fmt.Sprintf("rel=%q href=%q", rel, link.URL)}}
	}
	if rec != nil {
		rec.URL, rec.Depth, rec.Referrer = link.URL, link.Depth, link.Referrer
	}
	return rec
}

// Evidence is the skip-log evidence of the directive d of page.
func Evidence(page string, d pagerobots.Directive) *skiplog.Directive {
	return &skiplog.Directive{Page: page, Source: string(d.Source), Directive: d.Name, Statement: d.Statement, Line: d.Line}
}

// Signals is what a page's site said about it, in a form an item can
// carry: the page directives it gave the crawler's token (names,
// "noindex") and its AI usage preference per category ("train-ai": "n";
// unknown ones are left out).
type Signals struct {
	Robots []string          `json:"robots,omitempty"`
	Usage  map[string]string `json:"usage,omitempty"`
}

// SignalsOf returns the Signals of a page with directives d and usage
// decisions usage.
func SignalsOf(d pagerobots.Directives, usage []aipref.Decision) Signals {
	s := Signals{Robots: d.Names()}
	for _, u := range usage {
		if u.Value != aipref.Unknown {
			if s.Usage == nil {
				s.Usage = map[string]string{}
			}
			s.Usage[u.Label] = u.Value.String()
		}
	}
	return s
}

// Usage returns the usage preference of the page u for every category of
// the vocabulary (aipref.Categories), in its order: from the robots.txt
// entry e of u's authority (nil when none is known) and the response
// header h, read once for all of them (middleware.UsageDecisions, each
// category decided as middleware.DecideUsage decides it).
func Usage(e *middleware.RobotsEntry, u *url.URL, h http.Header) []aipref.Decision {
	return middleware.UsageDecisions(e, u, h)
}

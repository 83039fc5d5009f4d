package crawler

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/htmlpage"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

// What a site says outside robots.txt (DESIGN invariant 11): page
// directives (meta robots, X-Robots-Tag) and AI usage preferences
// (Content-Usage). The policy is declared by options and every exclusion
// is a skip-log record with its evidence:
//
//   - nofollow (default on): links found on a page that says nofollow
//     are not followed; each one not reached another way by the end of
//     the crawl gets one nofollow record.
//   - rel="nofollow" (default off): with WithRelNofollow, a link marked
//     so is not followed either, with its own reason, rel-nofollow.
//   - WithRespect(noindex, ...): a page that says one of them is fetched,
//     its items are not exported, and the page gets one page-directive
//     record; each item is counted as dropped.
//   - WithPurposes(train-ai, ...): a page whose combined usage preference
//     (robots.txt Content-Usage and the Content-Usage header) is n for a
//     declared purpose is fetched, its items are not exported, and it gets
//     one usage-preference record.

// WithNofollow sets whether pages that say nofollow (meta robots or
// X-Robots-Tag, for heed's token or for all robots) have their links left
// unfollowed. It is on by default; WithNofollow(false) follows them.
func WithNofollow(honour bool) Option { return func(c *config) { c.ignoreNofollow = !honour } }

// WithRelNofollow sets whether a link marked rel="nofollow", a hint about
// one link, is left unfollowed (skip reason rel-nofollow). Off by default.
// It applies to links followed with HTMLElement.Follow from the <a>
// element that carries the rel attribute (as FollowLinks does).
func WithRelNofollow(honour bool) Option { return func(c *config) { c.relNofollow = honour } }

// WithRespect names page directives (noindex, noarchive, nosnippet, none,
// noai, ...) whose pages keep their items out of the exporters: the page
// is fetched and parsed, its links followed as usual, but no item it emits
// is exported. New refuses a directive outside pagerobots.Known.
func WithRespect(directives ...string) Option {
	return func(c *config) {
		for _, d := range directives {
			c.respect = append(c.respect, strings.ToLower(strings.TrimSpace(d)))
		}
	}
}

// WithPurposes declares what the crawl's data is for, as categories of
// the AI usage vocabulary (aipref.Categories: "train-ai", "search"). A
// page whose site says n for one of them is fetched (fetching is governed
// by robots.txt Allow/Disallow) but exports no item. New refuses a label
// outside the vocabulary.
func WithPurposes(labels ...string) Option {
	return func(c *config) {
		for _, l := range labels {
			c.purposes = append(c.purposes, strings.TrimSpace(l))
		}
	}
}

// checkSignals validates WithRespect and WithPurposes.
func (c *config) checkSignals() error {
	for _, d := range c.respect {
		if _, ok := pagerobots.Known[d]; !ok {
			return fmt.Errorf("crawler: %q is not a page directive heed knows", d)
		}
	}
	for _, p := range c.purposes {
		if _, ok := aipref.Lookup(p); !ok {
			return fmt.Errorf("crawler: %q is not a usage category (%s)", p, strings.Join(aipref.Labels(), ", "))
		}
	}
	return nil
}

// PageSignals is what a page's site said about it, in a form an item can
// carry: the page directives it gave heed's token (names, "noindex") and
// its AI usage preference per category ("train-ai": "n"; unknown ones are
// left out).
type PageSignals struct {
	Robots []string          `json:"robots,omitempty"`
	Usage  map[string]string `json:"usage,omitempty"`
}

// SignalCarrier is an item that wants the PageSignals of the page it was
// emitted from: Emit calls SetPageSignals before the pipelines run.
type SignalCarrier interface {
	SetPageSignals(PageSignals)
}

// Signals returns what the response's site said about it.
func (r *Response) Signals() PageSignals {
	var s PageSignals
	s.Robots = r.Directives.Names()
	for _, d := range r.Usage {
		if d.Value != aipref.Unknown {
			if s.Usage == nil {
				s.Usage = map[string]string{}
			}
			s.Usage[d.Label] = d.Value.String()
		}
	}
	return s
}

// readSignals fills the response's Directives and Usage: the X-Robots-Tag
// header of any response, the meta elements of an HTML one, and the usage
// preference of every category of the vocabulary.
func (r *run) readSignals(resp *Response, html bool) {
	token := r.c.agent
	resp.Directives = pagerobots.ParseHeader(token, resp.Header.Values(pagerobots.HeaderName))
	if html {
		// One tokenizer pass for the meta robots and the links.
		scan := htmlpage.Scan(resp.Body, token, r.cfg.maxElements)
		resp.Directives.Add(scan.Meta)
		resp.scan = &scan
	}
	var entry *middleware.RobotsEntry
	if r.robots != nil {
		entry, _ = r.robots.Cached(resp.Request.Authority())
	}
	for _, c := range aipref.Categories {
		resp.Usage = append(resp.Usage, middleware.DecideUsage(entry, resp.URL, resp.Header, c.Label))
	}
}

// withheld returns the record that keeps the response's items out of the
// exporters, or nil: a declared purpose the site said n to, then a
// respected directive. It is computed once per response.
func (r *run) withheld(resp *Response) *skiplog.Record {
	resp.withheldOnce.Do(func() {
		req := resp.Request
		base := skiplog.Record{URL: req.URL, Authority: req.Authority(), Depth: req.Depth, Referrer: req.Referrer}
		for _, p := range r.cfg.purposes {
			for _, d := range resp.Usage {
				if d.Label == p && d.Value == aipref.Disallow {
					rec := base
					rec.Reason, rec.Usage = skiplog.UsagePreference, middleware.UsageEvidence(d)
					rec.Detail = "fetched; items not exported: the site's usage preference is " + p + "=n"
					resp.withheld = &rec
					return
				}
			}
		}
		for _, name := range r.cfg.respect {
			if d, ok := resp.Directives.Find(name); ok {
				rec := base
				rec.Reason, rec.Directive = skiplog.PageDirective, directiveEvidence(req.URL, d)
				rec.Detail = "fetched; items not exported: the page says " + name
				resp.withheld = &rec
				return
			}
		}
	})
	return resp.withheld
}

func directiveEvidence(page string, d pagerobots.Directive) *skiplog.Directive {
	return &skiplog.Directive{Page: page, Source: string(d.Source), Directive: d.Name, Statement: d.Statement, Line: d.Line}
}

// heldLinks are the links not followed because of nofollow, each with
// the record it gets if nothing else leads to it. They are pushed when
// the crawl ends, through an admission that refuses them with that
// record: a URL reached another way by then is a duplicate (counted, not
// logged), any other gets its one record.
type heldLinks struct {
	mu      sync.Mutex
	byURL   map[string]*frontier.Request
	records map[*frontier.Request]*skiplog.Record
}

// maxHeld bounds the links held; past it a link's record is written at
// once (it may then also be reached another way and fetched).
const maxHeld = 1 << 20

// nofollowed reports whether req, found on resp, is held back, and holds
// it. rel is the link's rel attribute when it was followed from its
// element.
func (r *run) nofollowed(resp *Response, req *frontier.Request, rel string) bool {
	var rec *skiplog.Record
	if !r.cfg.ignoreNofollow {
		if d, ok := resp.Directives.Find("nofollow"); ok {
			rec = &skiplog.Record{Reason: skiplog.Nofollow, Directive: directiveEvidence(resp.Request.URL, d)}
		}
	}
	if rec == nil && r.cfg.relNofollow && slices.Contains(strings.Fields(strings.ToLower(rel)), "nofollow") {
		rec = &skiplog.Record{Reason: skiplog.RelNofollow, Directive: &skiplog.Directive{
			Page: resp.Request.URL, Source: "link", Directive: "nofollow", Statement: fmt.Sprintf("rel=%q href=%q", rel, req.URL)}}
	}
	if rec == nil {
		return false
	}
	rec.URL, rec.Depth, rec.Referrer = req.URL, req.Depth, req.Referrer
	key := req.URL
	if c, err := frontier.Canonicalize(req.URL); err == nil {
		key = c
	}
	h := &r.held
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byURL == nil {
		h.byURL = map[string]*frontier.Request{}
		h.records = map[*frontier.Request]*skiplog.Record{}
	}
	if _, ok := h.byURL[key]; ok {
		return true // already held, with its first evidence
	}
	if len(h.byURL) >= maxHeld {
		r.skip(rec)
		return true
	}
	h.byURL[key] = req
	h.records[req] = rec
	return true
}

// admitting wraps an admission function so that a held link pushed by
// flushHeld is refused with its record once the scope check passed it.
func (r *run) admitting(base func(*frontier.Request) error) func(*frontier.Request) error {
	return func(req *frontier.Request) error {
		h := &r.held
		h.mu.Lock()
		rec := h.records[req]
		delete(h.records, req)
		h.mu.Unlock()
		if rec == nil {
			return base(req)
		}
		if base != nil {
			if err := base(req); err != nil {
				return err
			}
		}
		r.skip(rec)
		return errRecorded
	}
}

// flushHeld pushes the held links once no worker runs: each is a
// duplicate of a URL reached another way, or refused with its record.
func (r *run) flushHeld() {
	h := &r.held
	h.mu.Lock()
	reqs := make([]*frontier.Request, 0, len(h.byURL))
	for _, req := range h.byURL {
		reqs = append(reqs, req)
	}
	h.byURL = nil
	h.mu.Unlock()
	slices.SortFunc(reqs, func(a, b *frontier.Request) int { return strings.Compare(a.URL, b.URL) })
	for _, req := range reqs {
		if r.cfg.frontier == nil {
			// The admission (admitting) writes the record of a URL
			// nothing else reached and refuses it.
			res, err := r.front.Push(r.work, req)
			if errors.Is(err, errRecorded) {
				continue
			}
			if res == frontier.Duplicate {
				r.stats.Duplicate()
				h.mu.Lock()
				delete(h.records, req)
				h.mu.Unlock()
				continue
			}
		}
		// A frontier that did not ask the admission (a closed one, or a
		// frontier of the caller's own): the record is written here.
		h.mu.Lock()
		rec := h.records[req]
		delete(h.records, req)
		h.mu.Unlock()
		if rec != nil {
			r.skip(rec)
		}
	}
	h.mu.Lock()
	h.records = nil
	h.mu.Unlock()
}

// relOf returns the rel attribute of the element a link was followed
// from, "" when it was not followed from its own element.
func relOf(e *HTMLElement, link string) string {
	if e == nil || e.HTMLElement == nil {
		return ""
	}
	href := e.Attr("href")
	if href == "" || strings.TrimSpace(href) != strings.TrimSpace(link) {
		return ""
	}
	return e.Attr("rel")
}

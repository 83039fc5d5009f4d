package crawler

import (
	"strings"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/htmlpage"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/pagepolicy"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

// What a site says outside robots.txt (DESIGN invariant 11) is honoured
// by the policy these options declare (package pagepolicy).

// WithNofollow sets whether pages that say nofollow (meta robots or
// X-Robots-Tag, for heed's token or for all robots) have their links left
// unfollowed. It is on by default; WithNofollow(false) follows them.
func WithNofollow(honour bool) Option { return func(c *config) { c.pages.IgnoreNofollow = !honour } }

// WithRelNofollow sets whether a link marked rel="nofollow", a hint about
// one link, is left unfollowed (skip reason rel-nofollow). Off by default.
// It applies to links followed with HTMLElement.Follow from the <a>
// element that carries the rel attribute (as FollowLinks does).
func WithRelNofollow(honour bool) Option { return func(c *config) { c.pages.RelNofollow = honour } }

// WithRespect names page directives (noindex, noarchive, nosnippet, none,
// noai, ...) whose pages keep their items out of the exporters: the page
// is fetched and parsed, its links followed as usual, but no item it emits
// is exported. New refuses a directive outside pagerobots.Known.
func WithRespect(directives ...string) Option {
	return func(c *config) {
		for _, d := range directives {
			c.pages.Respect = append(c.pages.Respect, strings.ToLower(strings.TrimSpace(d)))
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
			c.pages.Purposes = append(c.pages.Purposes, strings.TrimSpace(l))
		}
	}
}

// PageSignals is what a page's site said about it, in a form an item can
// carry (pagepolicy.Signals): the page directives it gave heed's token
// and its AI usage preference per category.
type PageSignals = pagepolicy.Signals

// SignalCarrier is an item that wants the PageSignals of the page it was
// emitted from: Emit calls SetPageSignals before the pipelines run.
type SignalCarrier interface {
	SetPageSignals(PageSignals)
}

// Signals returns what the response's site said about it.
func (r *Response) Signals() PageSignals { return pagepolicy.SignalsOf(r.Directives, r.Usage) }

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
	resp.Usage = pagepolicy.Usage(entry, resp.URL, resp.Header)
}

// withheld returns the record that keeps the response's items out of the
// exporters, or nil (pagepolicy.Policy.Withheld), computed once per
// response.
func (r *run) withheld(resp *Response) *skiplog.Record {
	resp.withheldOnce.Do(func() {
		resp.withheld = r.cfg.pages.Withheld(resp.Request, resp.Directives, resp.Usage)
	})
	return resp.withheld
}

// flushHeld settles the held links once no worker runs
// (pagepolicy.Links.Flush): each is pushed through the crawl's frontier,
// whose admission refuses it with its record unless it is a duplicate of
// a URL reached another way. A frontier that does not ask the admission
// (backend.Admitter: a frontier of the caller's, WithFrontier) has its
// held links recorded at once.
func (r *run) flushHeld() {
	var push func(*frontier.Request) bool
	if a, ok := r.sess.(backend.Admitter); !ok || a.Admits() {
		push = func(req *frontier.Request) bool {
			res, _ := r.front.Push(r.work, req)
			if res == frontier.Duplicate {
				r.stats.Duplicate()
			}
			return res == frontier.Duplicate
		}
	}
	r.links.Flush(push)
}

// relOf returns the rel attribute of the element a link was followed
// from, "" when it was not followed from its own element.
func relOf(e *HTMLElement, link string) string {
	if e == nil || e.HTMLElement == nil {
		return ""
	}
	return htmlpage.LinkRel(e.Attr("href"), e.Attr("rel"), link)
}

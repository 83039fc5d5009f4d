package crawler

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// redirect queues a redirect's target as a new request that passes the
// whole chain again: scope, the robots.txt of the target's own authority,
// pacing. Loops and over-long chains end with a skip-log record.
func (r *run) redirect(resp *middleware.Response) {
	req := resp.Request
	loc := resp.Header.Get("Location")
	base, _ := parseHTTPURL(req.URL)
	target := loc
	if base != nil {
		if u, err := base.Parse(strings.TrimSpace(loc)); err == nil {
			u.Fragment, u.RawFragment = "", ""
			target = u.String()
		}
	}
	chain := append(append([]string(nil), req.Redirects...), req.URL)
	next := &frontier.Request{
		URL: target, Kind: req.Kind, Depth: req.Depth, Priority: req.Priority,
		Callback: req.Callback, Meta: req.Meta, Referrer: req.URL, Redirects: chain,
	}
	canon, err := frontier.Canonicalize(target)
	if err != nil {
		r.enqueue(next) // the frontier records it as invalid
		return
	}
	for _, u := range chain {
		if u == canon {
			r.skip(&skiplog.Record{URL: canon, Reason: skiplog.RedirectLoop, Depth: req.Depth, Referrer: req.URL,
				Detail: "redirect chain " + strings.Join(append(chain, canon), " -> ")})
			return
		}
	}
	if len(chain) > r.cfg.maxRedirect {
		r.skip(&skiplog.Record{URL: canon, Reason: skiplog.RedirectLimit, Depth: req.Depth, Referrer: req.URL,
			Detail: fmt.Sprintf("more than %d redirects from %s", r.cfg.maxRedirect, chain[0])})
		return
	}
	r.enqueue(next)
}

// strayVisit turns a colly Visit called from a callback into a followed
// link, so that it passes the frontier and the whole chain like any other.
func (r *run) strayVisit(parent *colly.Request, rawURL string) {
	req := &frontier.Request{URL: rawURL}
	if parent != nil {
		req.Depth = parent.Depth
	}
	r.enqueue(req)
}

// parseHTTPURL parses an absolute http or https URL.
func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return u, nil
}

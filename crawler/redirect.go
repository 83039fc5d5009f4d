package crawler

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// redirect queues a redirect's target as a new request that passes the
// whole chain again: scope, the robots.txt of the target's own authority,
// pacing. Loops, over-long chains and bad targets end with a skip-log
// record (middleware.RedirectHop decides).
func (r *run) redirect(ctx context.Context, resp *middleware.Response) {
	next, rec := middleware.RedirectHop(resp.Request, resp.Header.Get("Location"), r.cfg.maxRedirect)
	if rec != nil {
		r.skip(rec)
		return
	}
	r.enqueue(ctx, next)
}

// strayVisit turns a colly Visit called from a callback into a followed
// link, so that it passes the frontier and the whole chain like any other.
func (r *run) strayVisit(parent *colly.Request, rawURL string) {
	req := &frontier.Request{URL: rawURL}
	if parent != nil {
		req.Depth = parent.Depth
	}
	r.enqueue(r.work, req)
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

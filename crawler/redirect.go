package crawler

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// redirect queues a redirect's target as a new request that passes the
// whole chain again: scope, the robots.txt of the target's own authority,
// pacing. Loops, over-long chains and bad targets end with a skip-log
// record (middleware.RedirectHop decides).
func (r *run) redirect(ctx context.Context, resp *middleware.Response) {
	next, rec := middleware.RedirectHop(resp.Request, resp.Status, resp.Header.Get("Location"), r.cfg.maxRedirect)
	if rec != nil {
		r.skip(rec)
		return
	}
	r.enqueue(ctx, next)
}

// strayVisit turns a Visit on the downloader's own colly request into a
// request that passes the frontier and the whole chain like any other:
// one level deeper than the page it was asked on, with the page as its
// referrer and the page's callback. Callbacks never see that request
// (their colly view is visit.go's, whose Visit is Response.Follow); only
// a middleware stage reading a response's Native can ask it, with no
// page's Response to follow from.
func (r *run) strayVisit(parent *frontier.Request, rawURL string) {
	r.enqueue(r.work, &frontier.Request{URL: rawURL, Depth: parent.Depth + 1, Referrer: parent.URL, Callback: parent.Callback})
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

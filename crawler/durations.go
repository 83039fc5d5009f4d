package crawler

import (
	"context"
	"errors"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/stats"
)

// timed is the bottom of the chain seen from above: every request heed
// sends (robots.txt, sitemaps, pages; each retry on its own) is timed
// into the crawl's duration histograms. A streamed sitemap counts until
// its header; a request the crawl itself cancelled is not counted.
func (r *run) timed(next middleware.Fetcher) middleware.Fetcher {
	return middleware.FetcherFunc(func(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
		start := time.Now()
		resp, err := next.Fetch(ctx, req)
		if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled)) {
			return resp, err
		}
		status := 0
		if resp != nil {
			status = resp.Status
		}
		r.stats.RequestTook(stats.StatusClass(status, err), time.Since(start))
		return resp, err
	})
}

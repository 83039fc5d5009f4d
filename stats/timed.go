package stats

import (
	"context"
	"errors"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// Timed returns the stage that times every request below it into st's
// duration histograms (RequestTook, by StatusClass): put at the bottom of
// a crawl's chain, above the downloader, it counts every request sent
// (robots.txt, sitemaps, pages; each retry on its own). A streamed body
// counts until its header; a request whose context was cancelled (the
// crawl itself stopping it) is not counted.
func (st *Collector) Timed(next middleware.Fetcher) middleware.Fetcher {
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
		st.RequestTook(StatusClass(status, err), time.Since(start))
		return resp, err
	})
}

package crawler_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
)

// completing is an in-memory frontier that can also queue a page's links
// and end its lease in one call, as the Redis frontier does; it counts
// the leases it hands out and how they end.
type completing struct {
	*frontier.Memory
	nexts, completes, dones, retries atomic.Int64
}

func (f *completing) Next(ctx context.Context) (*frontier.Request, error) {
	r, err := f.Memory.Next(ctx)
	if err == nil {
		f.nexts.Add(1)
	}
	return r, err
}

func (f *completing) Complete(ctx context.Context, req *frontier.Request, links []*frontier.Request) ([]frontier.PushResult, []error, error) {
	f.completes.Add(1)
	res := make([]frontier.PushResult, len(links))
	errs := make([]error, len(links))
	for i, l := range links {
		res[i], errs[i] = f.Memory.Push(ctx, l)
	}
	return res, errs, f.Memory.Done(ctx, req)
}

func (f *completing) Retry(ctx context.Context, req *frontier.Request, notBefore time.Time) error {
	f.retries.Add(1)
	return f.Memory.Retry(ctx, req, notBefore)
}

func (f *completing) Done(ctx context.Context, req *frontier.Request) error {
	f.dones.Add(1)
	return f.Memory.Done(ctx, req)
}

// TestCompleteEndsEveryPage crawls the scenario on a frontier that
// completes pages in one call: every page answered 2xx ends its lease
// with Complete (its links with it), every lease ends once (Complete, Done or Retry), and the crawl
// still matches the oracle.
func TestCompleteEndsEveryPage(t *testing.T) {
	f := &completing{Memory: frontier.NewMemory()}
	res := crawlScenario(t, crawler.WithFrontier(f))
	exp := res.site.Expected("HeedBot")
	checkRequestsMatchOracle(t, countRequests(res.site), exp)
	checkSkipsMatchOracle(t, skipsByURL(t, res.records), exp.Skipped)
	ok := int64(0)
	for _, h := range res.site.Hits() {
		if h.Status >= 200 && h.Status < 300 && !strings.HasSuffix(h.Path, "/robots.txt") && !strings.Contains(h.Path, "sitemap") {
			ok++
		}
	}
	if c := f.completes.Load(); c < ok || ok == 0 {
		t.Errorf("%d leases ended with Complete, want at least the %d pages answered 2xx", c, ok)
	}
	if c, d, r, n := f.completes.Load(), f.dones.Load(), f.retries.Load(), f.nexts.Load(); c+d+r != n {
		t.Errorf("%d Complete + %d Done + %d Retry for %d leases", c, d, r, n)
	}
}

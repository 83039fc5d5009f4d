package middleware

import (
	"context"
	"fmt"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// Budget caps the number of pages heed downloads, in total and per
// authority. It sits after the robots stage, so URLs robots.txt excludes do
// not spend the budget, and it counts a request once however often the
// request is deferred and retried. Sitemaps and robots.txt files are not
// pages and are not counted.
type Budget struct {
	// Total caps pages over the whole crawl; 0 means no cap.
	Total int
	// PerAuthority caps pages per authority; 0 means no cap.
	PerAuthority int

	mu     sync.Mutex
	spent  int
	byAuth map[string]int
	// admitted holds the requests already counted, so that a deferred
	// request is not counted twice. It holds at most Total (or the sum of
	// the per-authority caps) entries.
	admitted map[uint64]struct{}
}

// Stage returns the budget check as a chain stage.
func (b *Budget) Stage() Stage {
	return func(next Fetcher) Fetcher {
		return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			if err := b.spend(req); err != nil {
				return nil, err
			}
			return next.Fetch(ctx, req)
		})
	}
}

func (b *Budget) spend(req *frontier.Request) error {
	if (b.Total <= 0 && b.PerAuthority <= 0) || req.Kind != frontier.KindPage {
		return nil
	}
	auth := req.Authority()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.admitted == nil {
		b.admitted = make(map[uint64]struct{})
		b.byAuth = make(map[string]int)
	}
	if _, ok := b.admitted[req.Seq]; ok && req.Seq != 0 {
		return nil
	}
	var detail string
	switch {
	case b.Total > 0 && b.spent >= b.Total:
		detail = fmt.Sprintf("the crawl's budget of %d pages is spent", b.Total)
	case b.PerAuthority > 0 && b.byAuth[auth] >= b.PerAuthority:
		detail = fmt.Sprintf("the budget of %d pages for %s is spent", b.PerAuthority, auth)
	}
	if detail != "" {
		return &skiplog.Record{URL: req.URL, Authority: auth, Reason: skiplog.MaxPages, Detail: detail, Depth: req.Depth, Referrer: req.Referrer}
	}
	b.spent++
	b.byAuth[auth]++
	if req.Seq != 0 {
		b.admitted[req.Seq] = struct{}{}
	}
	return nil
}

// Spent reports how many pages have been admitted so far.
func (b *Budget) Spent() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

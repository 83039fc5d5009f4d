package middleware

import (
	"context"
	"fmt"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// Budget caps the number of pages heed downloads, in total and per
// authority. It is spent only on requests that are about to be sent: its
// [Budget.Stage] sits after the politeness stage, so a URL that robots.txt
// excludes, that pacing defers, or whose authority's Crawl-delay is over
// the cap does not spend it; its [Budget.Check] sits before the
// politeness stage and refuses, without spending, the requests of a
// budget already spent, so they are accounted for without waiting for
// their authority's turn. With an HTTP cache above politeness, a page
// served from the cache is a page served: the cache's serving passes
// through Stage too (httpcache.Cache.StageServing), and a page that goes
// on to the site spends the budget below politeness as without a cache.
// It counts a request once however often the request is deferred and
// retried. Sitemaps and robots.txt files are not pages and are not
// counted.
type Budget struct {
	// Total caps pages over the whole crawl; 0 means no cap.
	Total int
	// PerAuthority caps pages per authority; 0 means no cap.
	PerAuthority int
	// Save, when set, is called for every request the budget admits,
	// before the request goes on down the chain; an error fails the
	// request. A crawl that keeps its state on disk stores the admission
	// there, so that a resumed crawl neither spends the budget twice on a
	// request that was in flight at a crash nor exceeds it (see Restore).
	Save func(seq uint64, authority string) error

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
			fresh, err := b.spend(req)
			if err != nil {
				return nil, err
			}
			if fresh && b.Save != nil {
				// Outside the lock: concurrent admissions share the
				// store's fsyncs instead of queueing for them.
				if err := b.Save(req.Seq, req.Authority()); err != nil {
					return nil, fmt.Errorf("budget: save admission of %s: %w", req.URL, err)
				}
			}
			return next.Fetch(ctx, req)
		})
	}
}

// Check returns the stage that refuses, without spending anything, the
// requests the budget could not admit now: a budget spent in total or
// for the request's authority. Put it before the politeness stage, and
// Stage after it.
func (b *Budget) Check() Stage {
	return func(next Fetcher) Fetcher {
		return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			if err := b.refusal(req); err != nil {
				return nil, err
			}
			return next.Fetch(ctx, req)
		})
	}
}

// refusal returns the record that refuses req if the budget is spent for
// it, nil otherwise; it spends nothing.
func (b *Budget) refusal(req *frontier.Request) error {
	if (b.Total <= 0 && b.PerAuthority <= 0) || req.Kind != frontier.KindPage {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if _, ok := b.admitted[req.Seq]; ok && req.Seq != 0 {
		return nil
	}
	if rec := b.spentFor(req); rec != nil {
		return rec
	}
	return nil
}

// spentFor returns the record refusing req when the budget is spent for
// it; b.mu is held.
func (b *Budget) spentFor(req *frontier.Request) *skiplog.Record {
	auth := req.Authority()
	var detail string
	switch {
	case b.Total > 0 && b.spent >= b.Total:
		detail = fmt.Sprintf("the crawl's budget of %d pages is spent", b.Total)
	case b.PerAuthority > 0 && b.byAuth[auth] >= b.PerAuthority:
		detail = fmt.Sprintf("the budget of %d pages for %s is spent", b.PerAuthority, auth)
	}
	if detail == "" {
		return nil
	}
	return &skiplog.Record{URL: req.URL, Authority: auth, Reason: skiplog.MaxPages, Detail: detail, Depth: req.Depth, Referrer: req.Referrer}
}

// spend admits req or returns the record that refuses it; fresh reports
// an admission that was not counted before.
func (b *Budget) spend(req *frontier.Request) (fresh bool, err error) {
	if (b.Total <= 0 && b.PerAuthority <= 0) || req.Kind != frontier.KindPage {
		return false, nil
	}
	auth := req.Authority()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if _, ok := b.admitted[req.Seq]; ok && req.Seq != 0 {
		return false, nil
	}
	if rec := b.spentFor(req); rec != nil {
		return false, rec
	}
	b.spent++
	b.byAuth[auth]++
	if req.Seq != 0 {
		b.admitted[req.Seq] = struct{}{}
	}
	return true, nil
}

func (b *Budget) init() {
	if b.admitted == nil {
		b.admitted = make(map[uint64]struct{})
		b.byAuth = make(map[string]int)
	}
}

// Restore counts admissions saved by an earlier run (Save's arguments, by
// Seq), before the crawl starts: they are spent, and a request with one of
// these Seqs that comes back (it was in flight when that run stopped) is
// not counted again.
func (b *Budget) Restore(admitted map[uint64]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	for seq, auth := range admitted {
		if _, ok := b.admitted[seq]; ok {
			continue
		}
		b.admitted[seq] = struct{}{}
		b.spent++
		b.byAuth[auth]++
	}
}

// Spent reports how many pages have been admitted so far.
func (b *Budget) Spent() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

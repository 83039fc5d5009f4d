package redispacer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
)

// mustReadyIn checks that ReadyAt answers between lo and hi from now.
func mustReadyIn(t *testing.T, p *redispacer.Pacer, what string, lo, hi time.Duration) {
	t.Helper()
	if d := time.Until(p.ReadyAt(site)); d < lo || d > hi {
		t.Fatalf("%s: ReadyAt in %v; want between %v and %v", what, d, lo, hi)
	}
}

// An authority with an interval has at most one request in flight across
// the whole crawl, whatever WithConcurrency says: only a start after the
// previous release keeps arrivals at the server an interval apart. While
// one is in flight, in whichever process, ReadyAt and TryAcquire agree on
// the soonest next start: an interval from now.
func TestIntervalMeansOneInFlight(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name              string
		floor, crawlDelay time.Duration
	}{
		{"floor", time.Second, 0},
		{"crawl-delay, no floor", 0, time.Second},
		{"crawl-delay above the floor", 100 * time.Millisecond, time.Second},
	}
	const slack = 150 * time.Millisecond // Redis round trips on a loaded machine
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			opts := []redispacer.Option{redispacer.WithFloor(tt.floor), redispacer.WithConcurrency(8)}
			a, b := e.pacer(opts...), e.pacer(opts...)
			if err := a.SetCrawlDelay(ctx, site, tt.crawlDelay); err != nil {
				t.Fatal(err)
			}
			mustAcquire(t, a, "first")
			mustWait(t, a, "the same process, at once", time.Second-slack, time.Second)
			mustWait(t, b, "another process, at once", time.Second-slack, time.Second)
			for _, d := range []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second} {
				// A slow response: the start anchor passes, the request is
				// still out.
				e.clk.advance(d)
				mustReadyIn(t, b, "in flight", time.Second-slack, time.Second)
				mustWait(t, b, "in flight", time.Second-slack, time.Second)
				mustWait(t, a, "in flight", time.Second-slack, time.Second)
			}
			if st, err := b.State(ctx, site); err != nil || st.InFlight != 1 {
				t.Fatalf("State = %+v, %v; want 1 in flight", st, err)
			}
			a.Release(ctx, site, politeness.Feedback{Status: 200})
			mustReadyIn(t, b, "released", time.Second-slack, time.Second)
			mustWait(t, b, "released", time.Second-slack, time.Second)
			e.clk.advance(time.Second + time.Millisecond)
			mustAcquire(t, b, "an interval after the release")
			mustWait(t, a, "the other process, at once", time.Second-slack, time.Second)
		})
	}
}

// A Crawl-delay that arrives while several requests to an authority with no
// interval are in flight, in several processes, holds the next start until
// all of them are released and an interval after the last; a Crawl-delay of
// 0 with no floor gives the authority its concurrency back.
func TestIntervalSetWhileSeveralInFlight(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	opts := []redispacer.Option{redispacer.WithFloor(0), redispacer.WithConcurrency(3)}
	ps := []*redispacer.Pacer{e.pacer(opts...), e.pacer(opts...), e.pacer(opts...)}
	for _, p := range ps {
		mustAcquire(t, p, "no interval, within the concurrency")
	}
	ok, at, err := ps[0].TryAcquire(ctx, site)
	if ok || err != nil || !at.IsZero() {
		t.Fatalf("fourth = %v, %v, %v; want a refusal until a release", ok, at, err)
	}
	if err := ps[1].SetCrawlDelay(ctx, site, time.Second); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		// Slow responses: an interval passes between releases, and still
		// nothing may start while one is out.
		e.clk.advance(1500 * time.Millisecond)
		mustReadyIn(t, ps[0], "some in flight", 850*time.Millisecond, time.Second)
		mustWait(t, ps[2], "some in flight", 850*time.Millisecond, time.Second)
		p.Release(ctx, site, politeness.Feedback{Status: 200})
	}
	mustWait(t, ps[0], "all released", 850*time.Millisecond, time.Second)
	e.clk.advance(time.Second + time.Millisecond)
	mustAcquire(t, ps[0], "an interval after the last release")
	if err := ps[1].SetCrawlDelay(ctx, site, 0); err != nil {
		t.Fatal(err)
	}
	mustAcquire(t, ps[1], "no interval again")
	mustAcquire(t, ps[2], "no interval again")
	if ok, _, _ := ps[0].TryAcquire(ctx, site); ok {
		t.Fatal("a fourth start with a concurrency of 3")
	}
}

// A start refused because another is in flight raises the stored ready
// time, the one every process's Redis frontier reads, so that no frontier
// hands out the authority's requests before the pacer could start one;
// the release puts it back to an interval after the release.
func TestBusyRefusalHoldsTheFrontier(t *testing.T) {
	e := newEnv(t)
	opts := []redispacer.Option{redispacer.WithFloor(time.Second), redispacer.WithConcurrency(8)}
	a := e.pacer(opts...)
	s := e.store()
	b, err := redispacer.New(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithPollInterval(20*time.Millisecond),
		redisfrontier.WithFrontierOptions(frontier.WithGate(b), frontier.WithLeasesPerAuthority(8)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := f.Push(ctx, &frontier.Request{URL: site + "/next"}); res != frontier.Added || err != nil {
		t.Fatalf("Push = %v, %v", res, err)
	}
	mustAcquire(t, a, "a request of another process")
	e.clk.advance(5 * time.Second) // a slow response
	mustWait(t, a, "in flight", 800*time.Millisecond, time.Second)

	nctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	r, err := f.Next(nctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next while the authority's request is in flight = %v, %v; want nothing handed out", r, err)
	}
	a.Release(context.Background(), site, politeness.Feedback{Status: 200})
	e.clk.advance(time.Second + time.Millisecond)
	nctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if r, err = f.Next(nctx); err != nil {
		t.Fatalf("Next an interval after the release: %v", err)
	}
	if ok, _, err := b.TryAcquire(context.Background(), r.Authority()); !ok || err != nil {
		t.Fatalf("TryAcquire of the request handed out = %v, %v", ok, err)
	}
}

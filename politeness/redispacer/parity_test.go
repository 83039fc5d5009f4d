package redispacer_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
)

// manualClock is a politeness.Clock that moves only when told.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }
func (c *manualClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.now.Add(d)
	return ch
}

// The fleet-wide pacer reads a response's feedback as politeness.Pacer
// does: after a failure and then each kind of feedback, both have the same
// failure count and backoff, and are paused (or not) for the same time.
func TestFeedbackLikePoliteness(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	clk := &manualClock{now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	opts := struct{ floor, base, max, pause time.Duration }{0, 4 * time.Second, time.Minute, 30 * time.Second}
	for i, fb := range []politeness.Feedback{
		{Status: 200}, {Status: 301}, {Status: 404}, {Status: 500}, {Status: 502},
		{Status: 503}, {Status: 503, RetryAfter: "7"}, {Status: 429, RetryAfter: "7"},
		{Status: 429}, {Status: 429, RetryAfter: "soon"}, {Status: 503, RetryAfter: "3600"},
		{Status: 500, RetryAfter: "7"}, {Err: errors.New("connection refused")},
		{Err: context.Canceled}, {Err: fmt.Errorf("fetch: %w", context.Canceled)}, {},
	} {
		site := fmt.Sprintf("http://case%d.example", i)
		mem, err := politeness.New(politeness.WithClock(clk), politeness.WithFloor(opts.floor),
			politeness.WithBackoff(opts.base, opts.max), politeness.WithMaxPause(opts.pause))
		if err != nil {
			t.Fatal(err)
		}
		red := e.pacer(redispacer.WithFloor(opts.floor), redispacer.WithBackoff(opts.base, opts.max),
			redispacer.WithMaxPause(opts.pause))
		for _, f := range []politeness.Feedback{{Status: 500}, fb} {
			mem.TryAcquire(ctx, site)
			mem.Release(ctx, site, f)
			red.TryAcquire(ctx, site)
			red.Release(ctx, site, f)
		}
		ms := mem.State(site)
		rs, err := red.State(ctx, site)
		if err != nil {
			t.Fatal(err)
		}
		memPause := ms.PausedUntil.Sub(clk.now)
		redPause := time.Until(rs.PausedUntil)
		if ms.Failures != rs.Failures || ms.Backoff != rs.Backoff || redPause > memPause || redPause < memPause-time.Second {
			t.Errorf("%+v: politeness has failures %d, backoff %v, pause %v; redispacer %d, %v, %v",
				fb, ms.Failures, ms.Backoff, memPause, rs.Failures, rs.Backoff, redPause)
		}
	}
}

package politeness

import (
	"context"
	"testing"
	"time"
)

// WithConcurrency applies to an authority with no interval.
func TestConcurrencyLimit(t *testing.T) {
	p, _ := newTestPacer(t, WithFloor(0), WithConcurrency(3))
	for i := 0; i < 3; i++ {
		mustAcquire(t, p, hostA)
	}
	mustRefuse(t, p, hostA, time.Time{}) // zero: after a release
	if r := p.ReadyAt(hostA); !r.IsZero() {
		t.Fatalf("ReadyAt = %v; ReadyAt ignores concurrency without an interval", r)
	}
	if s := p.State(hostA); s.InFlight != 3 {
		t.Fatalf("InFlight = %d", s.InFlight)
	}
	p.Release(context.Background(), hostA, Feedback{Status: 200})
	mustAcquire(t, p, hostA)
	mustAcquire(t, p, hostB) // other authorities have their own slots
}

// An authority with an interval has at most one request in flight, whatever
// WithConcurrency says: only a start after the previous release keeps
// arrivals at the server an interval apart. While one is in flight, ReadyAt
// and TryAcquire agree on the soonest next start: an interval from now.
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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, clk := newTestPacer(t, WithFloor(tt.floor), WithConcurrency(8))
			if err := p.SetCrawlDelay(ctx, hostA, tt.crawlDelay); err != nil {
				t.Fatal(err)
			}
			t0 := clk.Now()
			mustAcquire(t, p, hostA)
			mustRefuse(t, p, hostA, t0.Add(time.Second))
			for _, d := range []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second} {
				clk.Advance(d) // a slow response: the start anchor passes, the request is still out
				want := clk.Now().Add(time.Second)
				if r := p.ReadyAt(hostA); !r.Equal(want) {
					t.Fatalf("in flight at +%v: ReadyAt = +%v; want +%v", clk.Now().Sub(t0), r.Sub(t0), want.Sub(t0))
				}
				mustRefuse(t, p, hostA, want)
			}
			if s := p.State(hostA); s.InFlight != 1 {
				t.Fatalf("InFlight = %d; want 1", s.InFlight)
			}
			p.Release(ctx, hostA, Feedback{Status: 200})
			want := clk.Now().Add(time.Second) // completion anchor
			if r := p.ReadyAt(hostA); !r.Equal(want) {
				t.Fatalf("released: ReadyAt = +%v; want +%v", r.Sub(t0), want.Sub(t0))
			}
			clk.Advance(time.Second - 1)
			mustRefuse(t, p, hostA, want)
			clk.Advance(1)
			mustAcquire(t, p, hostA)
			mustRefuse(t, p, hostA, clk.Now().Add(time.Second))
		})
	}
}

// A Crawl-delay that arrives while several requests to an authority with no
// interval are in flight holds the next start until all of them are
// released, and an interval after the last; a Crawl-delay of 0 with no floor
// gives the authority its concurrency back.
func TestIntervalSetWhileSeveralInFlight(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t, WithFloor(0), WithConcurrency(3))
	for i := 0; i < 3; i++ {
		mustAcquire(t, p, hostA)
	}
	if err := p.SetCrawlDelay(ctx, hostA, time.Second); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		clk.Advance(100 * time.Millisecond)
		want := clk.Now().Add(time.Second)
		if r := p.ReadyAt(hostA); !r.Equal(want) {
			t.Fatalf("%d in flight: ReadyAt = %v from now; want 1s", 3-i, r.Sub(clk.Now()))
		}
		mustRefuse(t, p, hostA, want)
		p.Release(ctx, hostA, Feedback{Status: 200})
	}
	want := clk.Now().Add(time.Second)
	mustRefuse(t, p, hostA, want)
	clk.AdvanceTo(want)
	mustAcquire(t, p, hostA)
	if err := p.SetCrawlDelay(ctx, hostA, 0); err != nil {
		t.Fatal(err)
	}
	mustAcquire(t, p, hostA)
	mustAcquire(t, p, hostA)
	mustRefuse(t, p, hostA, time.Time{})
}

// At the concurrency limit during a pause, the retry time is the later of
// the pause's end and one interval from now.
func TestConcurrencyLimitDuringPause(t *testing.T) {
	for _, floor := range []time.Duration{0, time.Second} {
		p, clk := newTestPacer(t, WithFloor(floor))
		mustAcquire(t, p, hostA)
		until := clk.Now().Add(time.Minute)
		if err := p.Restore(map[string]AuthorityState{hostA: {PausedUntil: until}}); err != nil {
			t.Fatal(err)
		}
		mustRefuse(t, p, hostA, until)
		p.Release(context.Background(), hostA, Feedback{Status: 200})
		clk.Advance(time.Minute)
		mustAcquire(t, p, hostA)
	}
}

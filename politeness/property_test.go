package politeness

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

var errTest = errors.New("connection reset by peer")

// TestRandomScheduleKeepsInvariants drives a Pacer on a fake clock with a
// random mix of starts, releases, Crawl-delays (zero among them, so that
// some authorities have no interval) and server answers, and checks every
// booked start against the rules kept by the test itself: spaced from the
// previous start and release by the interval, outside any pause, and with no
// other request in flight if the interval is above zero, or fewer than the
// concurrency limit if it is zero. It checks that the time ReadyAt gives is
// always good for TryAcquire, and that while an authority with an interval
// has a request in flight, ReadyAt and TryAcquire agree on the soonest next
// start, at least an interval away, and that it is reached if the request is
// released at once.
func TestRandomScheduleKeepsInvariants(t *testing.T) {
	ctx := context.Background()
	type model struct {
		interval               time.Duration
		lastStart, lastRelease time.Time
		pausedUntil            time.Time
		inFlight               int
	}
	const concurrency = 3
	// limit is the rule under test: one in flight with an interval.
	limit := func(m *model) int {
		if m.interval > 0 {
			return 1
		}
		return concurrency
	}
	rng := rand.New(rand.NewPCG(1, 2))
	p, clk := newTestPacer(t, WithFloor(0), WithConcurrency(concurrency),
		WithBackoff(200*time.Millisecond, 3*time.Second), WithMaxPause(5*time.Second),
		WithLogger(slog.New(slog.DiscardHandler)))
	names := []string{"http://a", "https://a", "https://a:8443", "https://b"}
	models := map[string]*model{}
	for _, n := range names {
		models[n] = &model{}
	}
	answers := []Feedback{
		{Status: 200}, {Status: 200}, {Status: 200}, {Status: 404}, {Status: 500},
		{Status: 503}, {Status: 429, RetryAfter: "1"}, {Status: 429, RetryAfter: "9"},
		{Status: 503, RetryAfter: "junk"}, {}, {Err: errTest},
	}
	var starts, spacedStarts, parallelStarts, busyChecks int
	book := func(step int, name string, m *model) {
		now := clk.Now()
		starts++
		switch {
		case m.inFlight >= limit(m):
			t.Fatalf("step %d: %s: start with %d in flight; interval %v, limit %d", step, name, m.inFlight, m.interval, limit(m))
		case now.Before(m.pausedUntil):
			t.Fatalf("step %d: %s: start at %v during a pause until %v", step, name, now, m.pausedUntil)
		case !m.lastStart.IsZero() && now.Before(m.lastStart.Add(m.interval)):
			t.Fatalf("step %d: %s: start %v after the previous start; interval %v", step, name, now.Sub(m.lastStart), m.interval)
		case !m.lastRelease.IsZero() && now.Before(m.lastRelease.Add(m.interval)):
			t.Fatalf("step %d: %s: start %v after the previous release; interval %v", step, name, now.Sub(m.lastRelease), m.interval)
		}
		if m.interval > 0 {
			spacedStarts++
		} else if m.inFlight > 0 {
			parallelStarts++
		}
		m.inFlight++
		m.lastStart = now
	}
	release := func(name string, m *model, fb Feedback) {
		p.Release(ctx, name, fb)
		m.inFlight--
		m.lastRelease = clk.Now()
		m.pausedUntil = p.State(name).PausedUntil // the pause rules have their own tests
	}
	for step := 0; step < 20000; step++ {
		name := names[rng.IntN(len(names))]
		m := models[name]
		now := clk.Now()
		switch op := rng.IntN(10); {
		case op < 4:
			ok, at, err := p.TryAcquire(ctx, name)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if !ok {
				if !at.IsZero() && !at.After(now) {
					t.Fatalf("step %d: refused with retry time %v, not after now %v", step, at, now)
				}
				continue
			}
			book(step, name, m)
		case op < 7:
			if m.inFlight == 0 {
				continue
			}
			release(name, m, answers[rng.IntN(len(answers))])
		case op < 8:
			var d time.Duration
			if rng.IntN(3) > 0 {
				d = time.Duration(1+rng.IntN(1500)) * time.Millisecond
			}
			if err := p.SetCrawlDelay(ctx, name, d); err != nil {
				t.Fatal(err)
			}
			m.interval = d
		case op < 9:
			r := p.ReadyAt(name)
			if m.interval > 0 && m.inFlight > 0 {
				busyChecks++
				ok, at, _ := p.TryAcquire(ctx, name)
				switch {
				case ok:
					t.Fatalf("step %d: %s: second start with an interval of %v", step, name, m.interval)
				case r.Before(now.Add(m.interval)):
					t.Fatalf("step %d: %s: in flight, ReadyAt %v from now; interval %v", step, name, r.Sub(now), m.interval)
				case !at.Equal(r):
					t.Fatalf("step %d: %s: in flight, ReadyAt %v and retryAt %v differ", step, name, r, at)
				}
				if rng.IntN(2) == 0 {
					continue
				}
				// Released at once with success, the soonest start is r.
				for m.inFlight > 0 {
					release(name, m, Feedback{Status: 200})
				}
				clk.AdvanceTo(r)
			} else {
				// ReadyAt's time is good for TryAcquire unless all slots
				// are taken, which ReadyAt ignores with no interval.
				if m.inFlight >= concurrency {
					continue
				}
				clk.AdvanceTo(r)
			}
			if ok, at, _ := p.TryAcquire(ctx, name); !ok {
				t.Fatalf("step %d: %s: ReadyAt said %v, TryAcquire refused until %v", step, name, r, at)
			}
			book(step, name, m)
		default:
			clk.Advance(time.Duration(rng.IntN(400)) * time.Millisecond)
		}
	}
	// Each kind of start must have happened often enough to mean something.
	if starts < 1000 || spacedStarts < 300 || parallelStarts < 100 || busyChecks < 100 {
		t.Fatalf("too few cases: %d starts, %d with an interval, %d beside another in flight with none, %d checks of ReadyAt in flight",
			starts, spacedStarts, parallelStarts, busyChecks)
	}
	t.Logf("%d starts, %d with an interval, %d beside another in flight with none, %d checks of ReadyAt in flight",
		starts, spacedStarts, parallelStarts, busyChecks)
}

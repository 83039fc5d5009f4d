package politeness

import (
	"errors"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

var errTest = errors.New("connection reset by peer")

// TestRandomScheduleKeepsInvariants drives a Pacer on a fake clock with a
// random mix of starts, releases, Crawl-delays and server answers, and
// checks every booked start against the rules kept by the test itself:
// spaced from the previous start and release by the interval, outside any
// pause, within the concurrency limit; and that the time ReadyAt gives is
// always good for TryAcquire.
func TestRandomScheduleKeepsInvariants(t *testing.T) {
	type model struct {
		interval               time.Duration
		lastStart, lastRelease time.Time
		pausedUntil            time.Time
		inFlight               int
	}
	const concurrency = 2
	rng := rand.New(rand.NewPCG(1, 2))
	p, clk := newTestPacer(t, WithFloor(300*time.Millisecond), WithConcurrency(concurrency),
		WithBackoff(200*time.Millisecond, 3*time.Second), WithMaxPause(5*time.Second),
		WithLogger(slog.New(slog.DiscardHandler)))
	names := []string{"http://a", "https://a", "https://a:8443", "https://b"}
	models := map[string]*model{}
	for _, n := range names {
		models[n] = &model{interval: 300 * time.Millisecond}
	}
	answers := []Feedback{
		{Status: 200}, {Status: 200}, {Status: 200}, {Status: 404}, {Status: 500},
		{Status: 503}, {Status: 429, RetryAfter: "1"}, {Status: 429, RetryAfter: "9"},
		{Status: 503, RetryAfter: "junk"}, {}, {Err: errTest},
	}
	starts := 0
	for step := 0; step < 20000; step++ {
		name := names[rng.IntN(len(names))]
		m := models[name]
		now := clk.Now()
		switch op := rng.IntN(10); {
		case op < 4:
			ok, at, err := p.TryAcquire(name)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if !ok {
				if !at.IsZero() && !at.After(now) {
					t.Fatalf("step %d: refused with retry time %v, not after now %v", step, at, now)
				}
				continue
			}
			starts++
			if m.inFlight >= concurrency {
				t.Fatalf("step %d: %s: start beyond the concurrency limit", step, name)
			}
			switch {
			case now.Before(m.pausedUntil):
				t.Fatalf("step %d: %s: start at %v during a pause until %v", step, name, now, m.pausedUntil)
			case !m.lastStart.IsZero() && now.Before(m.lastStart.Add(m.interval)):
				t.Fatalf("step %d: %s: start %v after the previous start; interval %v", step, name, now.Sub(m.lastStart), m.interval)
			case !m.lastRelease.IsZero() && now.Before(m.lastRelease.Add(m.interval)):
				t.Fatalf("step %d: %s: start %v after the previous release; interval %v", step, name, now.Sub(m.lastRelease), m.interval)
			}
			m.inFlight++
			m.lastStart = now
		case op < 7:
			if m.inFlight == 0 {
				continue
			}
			fb := answers[rng.IntN(len(answers))]
			p.Release(name, fb)
			m.inFlight--
			m.lastRelease = now
			m.pausedUntil = p.State(name).PausedUntil // the pause rules have their own tests
		case op < 8:
			d := time.Duration(rng.IntN(1500)) * time.Millisecond
			if err := p.SetCrawlDelay(name, d); err != nil {
				t.Fatal(err)
			}
			m.interval = max(300*time.Millisecond, d)
		case op < 9:
			// ReadyAt's time is good for TryAcquire unless all slots are
			// taken, which ReadyAt ignores.
			r := p.ReadyAt(name)
			if m.inFlight >= concurrency {
				continue
			}
			clk.AdvanceTo(r)
			if ok, at, _ := p.TryAcquire(name); !ok {
				t.Fatalf("step %d: %s: ReadyAt said %v, TryAcquire refused until %v", step, name, r, at)
			}
			starts++
			m.inFlight++
			m.lastStart = clk.Now()
		default:
			clk.Advance(time.Duration(rng.IntN(400)) * time.Millisecond)
		}
	}
	if starts < 1000 {
		t.Fatalf("only %d starts in the random schedule", starts)
	}
}

package politeness

import (
	"context"
	"log/slog"
	"maps"
	"testing"
	"time"
)

// busyOf is Busy computed the slow way: every authority's state, kept
// when it has a request in flight or a pause after now.
func busyOf(p *Pacer, now time.Time) map[string]AuthorityState {
	out := map[string]AuthorityState{}
	for name, s := range p.Snapshot() {
		if s.InFlight > 0 || s.PausedUntil.After(now) {
			out[name] = s
		}
	}
	return out
}

// TestBusyIsTheBusyPartOfSnapshot: through starts, releases, a
// Retry-After pause, a backoff pause and a Restore, Busy gives exactly
// the authorities Snapshot shows in flight or paused, with the same
// states, and forgets an authority once its pause is over.
func TestBusyIsTheBusyPartOfSnapshot(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	p, err := New(WithClock(clk), WithFloor(time.Second), WithBackoff(2*time.Second, time.Minute), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, want ...string) {
		t.Helper()
		got := p.Busy()
		if slow := busyOf(p, clk.Now()); !maps.Equal(got, slow) {
			t.Errorf("%s: Busy = %v\nSnapshot's busy part = %v", step, got, slow)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d busy authorities, want %v: %v", step, len(got), want, got)
		}
		for _, a := range want {
			if _, ok := got[a]; !ok {
				t.Errorf("%s: %s is not busy: %v", step, a, got)
			}
		}
	}
	const a, b, c, d = "http://a", "http://b", "http://c", "http://d"
	check("a new pacer")
	for _, name := range []string{a, b, c} {
		if ok, _, _ := p.TryAcquire(ctx, name); !ok {
			t.Fatalf("first start to %s refused", name)
		}
	}
	check("three in flight", a, b, c)
	p.Release(ctx, a, Feedback{Status: 200})
	p.Release(ctx, b, Feedback{Status: 429, RetryAfter: "5"})
	p.Release(ctx, c, Feedback{Status: 500})
	check("a released, b paused 5 s, c backing off 2 s", b, c)
	clk.Advance(3 * time.Second)
	check("c's backoff over", b)
	if err := p.Restore(map[string]AuthorityState{d: {PausedUntil: clk.Now().Add(10 * time.Second)}, a: {PausedUntil: clk.Now().Add(-time.Second)}}); err != nil {
		t.Fatal(err)
	}
	check("d restored paused, a restored with a pause over", b, d)
	clk.Advance(5 * time.Second)
	check("b's pause over", d)
	clk.Advance(5 * time.Second)
	check("every pause over")
	if len(p.busy.m) != 0 {
		t.Errorf("the index still holds %d idle authorities", len(p.busy.m))
	}
	if len(p.Snapshot()) != 4 {
		t.Errorf("Snapshot lost authorities: %v", p.Snapshot())
	}
}

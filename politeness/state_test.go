package politeness

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStateOfUnknownAuthority(t *testing.T) {
	p, _ := newTestPacer(t, WithFloor(2*time.Second))
	if s := p.State(hostA); s != (AuthorityState{Interval: 2 * time.Second}) {
		t.Fatalf("State = %+v", s)
	}
	if p.Len() != 0 {
		t.Fatalf("State created an authority")
	}
}

// TestSnapshotRestorePreventsBurst saves the pacing of a crawl, restores it
// through JSON into a new Pacer a second later, and checks that no
// authority may start sooner than it could have in the old Pacer, while a
// Pacer without the snapshot would let every one start at once.
func TestSnapshotRestorePreventsBurst(t *testing.T) {
	ctx := context.Background()
	const (
		slow     = "https://slow.test"     // Crawl-delay 5 s
		limited  = "https://limited.test"  // said 429, Retry-After 60
		busy     = "https://busy.test"     // in flight at the snapshot
		excluded = "https://excluded.test" // Crawl-delay over the cap
		failing  = "https://failing.test"  // two 500s: backoff 2 s
	)
	old, clk := newTestPacer(t)
	t0 := clk.Now()
	if err := old.SetCrawlDelay(ctx, slow, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := old.SetCrawlDelay(ctx, excluded, time.Hour); err == nil {
		t.Fatal("want DelayTooLongError")
	}
	for _, a := range []string{slow, limited, failing} {
		mustAcquire(t, old, a)
	}
	clk.Advance(200 * time.Millisecond)
	old.Release(ctx, slow, Feedback{Status: 200})
	old.Release(ctx, limited, Feedback{Status: 429, RetryAfter: "60"})
	old.Release(ctx, failing, Feedback{Status: 500})
	mustAcquire(t, old, busy)
	clk.Advance(time.Second)
	mustAcquire(t, old, failing)
	old.Release(ctx, failing, Feedback{Status: 500}) // at t0+1.2s, backoff 2 s

	snap := old.Snapshot()
	if len(snap) != 5 || snap[busy].InFlight != 1 || !snap[excluded].Excluded || snap[failing].Failures != 2 {
		t.Fatalf("Snapshot = %+v", snap)
	}
	raw, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var loaded map[string]AuthorityState
	if err := json.Unmarshal(raw, &loaded); err != nil {
		t.Fatal(err)
	}

	clk.Advance(time.Second) // the restart: t0+2.2s
	restored, err := New(WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	if err := restored.Restore(loaded); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	now := clk.Now()
	wantAt := map[string]time.Time{
		slow:    t0.Add(5200 * time.Millisecond),
		limited: t0.Add(60200 * time.Millisecond),
		busy:    now.Add(time.Second), // treated as released at Restore
		failing: t0.Add(3200 * time.Millisecond),
	}
	for a, want := range wantAt {
		if r := restored.ReadyAt(a); !r.Equal(want) {
			t.Errorf("%s: ReadyAt = +%v; want +%v", a, r.Sub(t0), want.Sub(t0))
		}
		mustRefuse(t, restored, a, want)
	}
	var tooLong *DelayTooLongError
	if _, _, err := restored.TryAcquire(ctx, excluded); !errors.As(err, &tooLong) {
		t.Errorf("%s: TryAcquire error %v; want DelayTooLongError", excluded, err)
	}
	for _, a := range []string{slow, limited, failing} {
		got, want := restored.State(a), snap[a]
		if got != want {
			t.Errorf("%s: restored State\n%+v\nwant\n%+v", a, got, want)
		}
	}
	if s := restored.State(busy); s.InFlight != 0 || !s.LastRelease.Equal(now) {
		t.Errorf("busy: State = %+v; want no in-flight and released at Restore", s)
	}

	// Without the snapshot every authority but the excluded one would
	// start at once: the burst Restore prevents.
	fresh, _ := New(WithClock(clk))
	for a := range wantAt {
		mustAcquire(t, fresh, a)
	}
}

func TestRestoreMergesAndUsesOwnSettings(t *testing.T) {
	p, clk := newTestPacer(t, WithMaxCrawlDelay(10*time.Second), WithFloor(2*time.Second))
	t0 := clk.Now()
	mustAcquire(t, p, hostA)
	clk.Advance(3 * time.Second)
	p.Release(context.Background(), hostA, Feedback{Status: 200}) // live: released at t0+3s
	err := p.Restore(map[string]AuthorityState{
		hostA: {Interval: time.Second, LastStart: t0.Add(-time.Hour), LastRelease: t0.Add(-time.Hour)},
		hostB: {Interval: time.Minute, CrawlDelay: 20 * time.Second, Excluded: false},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The older saved times do not loosen the live pacing; the saved
	// interval is not read.
	if s := p.State(hostA); !s.LastRelease.Equal(t0.Add(3*time.Second)) || s.Interval != 2*time.Second {
		t.Fatalf("hostA State = %+v", s)
	}
	mustRefuse(t, p, hostA, t0.Add(5*time.Second))
	// 20 s is over this Pacer's cap of 10 s, whatever the snapshot said.
	if s := p.State(hostB); !s.Excluded || s.Interval != 2*time.Second {
		t.Fatalf("hostB State = %+v", s)
	}
}

func TestRestoreRejectsBadEntries(t *testing.T) {
	p, clk := newTestPacer(t)
	err := p.Restore(map[string]AuthorityState{
		"https://neg-delay.test":    {CrawlDelay: -1},
		"https://neg-backoff.test":  {Backoff: -1},
		"https://neg-failures.test": {Failures: -1},
		"https://neg-inflight.test": {InFlight: -1},
		hostA:                       {LastRelease: clk.Now()},
	})
	if err == nil {
		t.Fatal("Restore accepted negative values")
	}
	for _, name := range []string{"neg-delay", "neg-backoff", "neg-failures", "neg-inflight"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	if p.Len() != 1 {
		t.Fatalf("Len = %d; want only the valid entry restored", p.Len())
	}
	mustRefuse(t, p, hostA, clk.Now().Add(time.Second))
}

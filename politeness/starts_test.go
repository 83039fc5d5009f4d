package politeness

import (
	"context"
	"testing"
	"time"
)

func TestStartLogKeepsTheLatestStarts(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t, WithFloor(time.Second), WithStartLog(3))
	const a = "https://a.test"
	var want []time.Time
	for range 5 {
		mustAcquire(t, p, a)
		want = append(want, clk.Now())
		clk.Advance(100 * time.Millisecond)
		p.Release(ctx, a, Feedback{Status: 200})
		clk.Advance(time.Second)
	}
	// A refused try is no start.
	mustAcquire(t, p, a)
	want = append(want, clk.Now())
	if ok, _, _ := p.TryAcquire(ctx, a); ok {
		t.Fatal("second start while one is in flight")
	}
	got := p.Starts(a)
	want = want[len(want)-3:]
	if len(got) != 3 {
		t.Fatalf("Starts = %v, want %v", got, want)
	}
	for i := range got {
		if !got[i].Equal(want[i]) {
			t.Fatalf("Starts = %v, want %v", got, want)
		}
		if i > 0 && got[i].Sub(got[i-1]) < time.Second {
			t.Fatalf("starts %v apart, interval 1s", got[i].Sub(got[i-1]))
		}
	}
	all := p.RecentStarts()
	if len(all) != 1 || len(all[a]) != 3 {
		t.Fatalf("RecentStarts = %v", all)
	}
	if p.Starts("https://never.test") != nil {
		t.Fatal("an unknown authority has starts")
	}
}

func TestNoStartLogByDefault(t *testing.T) {
	p, _ := newTestPacer(t, WithFloor(0))
	mustAcquire(t, p, "https://a.test")
	if s := p.Starts("https://a.test"); s != nil {
		t.Fatalf("Starts without a log = %v", s)
	}
	if m := p.RecentStarts(); m != nil {
		t.Fatalf("RecentStarts without a log = %v", m)
	}
	if _, err := New(WithStartLog(-1)); err == nil {
		t.Fatal("a negative start log was accepted")
	}
}

func TestPausedByRetryAfter(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t, WithFloor(0))
	const a, b = "https://a.test", "https://b.test"
	mustAcquire(t, p, a)
	p.Release(ctx, a, Feedback{Status: 429, RetryAfter: "60"})
	mustAcquire(t, p, b)
	p.Release(ctx, b, Feedback{Status: 500})
	sa, sb := p.State(a), p.State(b)
	if !sa.PausedByRetryAfter || !sa.PausedUntil.Equal(clk.Now().Add(time.Minute)) {
		t.Fatalf("after Retry-After: %+v", sa)
	}
	if sb.PausedByRetryAfter || !sb.PausedUntil.After(clk.Now()) {
		t.Fatalf("after a 500: %+v", sb)
	}
	// A shorter backoff within a Retry-After pause leaves its cause.
	clk.Advance(61 * time.Second)
	mustAcquire(t, p, a)
	p.Release(ctx, a, Feedback{Status: 503, RetryAfter: "120"})
	p.Release(ctx, a, Feedback{Status: 500}) // backoff 1 s, within the pause
	if s := p.State(a); !s.PausedByRetryAfter || !s.PausedUntil.Equal(clk.Now().Add(2*time.Minute)) {
		t.Fatalf("after a backoff within a Retry-After pause: %+v", s)
	}
}

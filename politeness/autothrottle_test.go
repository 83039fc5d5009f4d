package politeness

import (
	"context"
	"strings"
	"testing"
	"time"
)

// scrapyNext is Scrapy's _adjust_delay, written out independently of
// AutoThrottle.Next: the value the interval must follow.
func scrapyNext(d, minDelay, maxDelay, latency time.Duration, target float64, status int) time.Duration {
	t := float64(latency) / target
	n := (float64(d) + t) / 2
	if t > n {
		n = t
	}
	if n > float64(maxDelay) {
		n = float64(maxDelay)
	}
	if n < float64(minDelay) {
		n = float64(minDelay)
	}
	if status != 200 && time.Duration(n) <= d {
		return d
	}
	return time.Duration(n)
}

// runThrottle drives one authority through n requests of the given latency
// on a fake clock and returns the interval after each release.
func runThrottle(t *testing.T, p *Pacer, clk *fakeClock, auth string, latency time.Duration, n int) []time.Duration {
	ctx := context.Background()
	t.Helper()
	var out []time.Duration
	for i := 0; i < n; i++ {
		at := p.ReadyAt(auth)
		if at.After(clk.Now()) {
			clk.AdvanceTo(at)
		}
		ok, _, err := p.TryAcquire(ctx, auth)
		if !ok || err != nil {
			t.Fatalf("request %d: TryAcquire = %v, %v at its ready time", i, ok, err)
		}
		clk.Advance(latency)
		p.Release(ctx, auth, Feedback{Status: 200, Latency: latency})
		out = append(out, p.State(auth).Interval)
	}
	return out
}

// TestAutoThrottleConverges: a 10 ms host and a 200 ms host, throttled from
// a 1 s start, follow Scrapy's formula step by step and converge to their
// latency; the fast host's Crawl-delay of 50 ms stays a floor the throttle
// never goes below, and the gaps between its starts never fall below it.
func TestAutoThrottleConverges(t *testing.T) {
	at := AutoThrottle{TargetConcurrency: 1, StartDelay: time.Second, MaxDelay: 10 * time.Second}
	p, clk := newTestPacer(t, WithFloor(0), WithAutoThrottle(at), WithStartLog(64))
	const fast, slow = "http://fast.example", "http://slow.example"
	crawlDelay := 50 * time.Millisecond
	if err := p.SetCrawlDelay(context.Background(), fast, crawlDelay); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		auth     string
		latency  time.Duration
		minDelay time.Duration
		want     time.Duration
	}{
		{fast, 10 * time.Millisecond, crawlDelay, crawlDelay},
		{slow, 200 * time.Millisecond, 0, 200 * time.Millisecond},
	} {
		if got := p.State(h.auth).Interval; got != time.Second {
			t.Fatalf("%s starts with interval %v; want the 1 s start delay", h.auth, got)
		}
		got := runThrottle(t, p, clk, h.auth, h.latency, 30)
		d := time.Second
		for i, iv := range got {
			d = scrapyNext(d, h.minDelay, at.MaxDelay, h.latency, at.TargetConcurrency, 200)
			if iv != d {
				t.Fatalf("%s after response %d: interval %v; Scrapy's formula gives %v", h.auth, i+1, iv, d)
			}
		}
		if last := got[len(got)-1]; last < h.want || last > h.want+time.Millisecond {
			t.Errorf("%s converged to %v; want %v", h.auth, last, h.want)
		}
	}
	starts := p.Starts(fast)
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < crawlDelay {
			t.Fatalf("gap %v between starts %d and %d of %s is below its Crawl-delay %v", gap, i-1, i, fast, crawlDelay)
		}
	}
}

// A slower response raises the delay at once (the target wins over the
// mean), MaxDelay caps it but never below the Crawl-delay, and a non-200
// answer never lowers it.
func TestAutoThrottleEdges(t *testing.T) {
	at := &AutoThrottle{TargetConcurrency: 2, StartDelay: 100 * time.Millisecond, MaxDelay: 400 * time.Millisecond}
	for _, tt := range []struct {
		name             string
		d, base, latency time.Duration
		status           int
		want             time.Duration
	}{
		{"slower: target wins", 100 * time.Millisecond, 0, 600 * time.Millisecond, 200, 300 * time.Millisecond},
		{"capped", 100 * time.Millisecond, 0, 2 * time.Second, 200, 400 * time.Millisecond},
		{"cap under crawl-delay", 100 * time.Millisecond, time.Second, 2 * time.Second, 200, time.Second},
		{"faster: halfway", 300 * time.Millisecond, 0, 100 * time.Millisecond, 200, 175 * time.Millisecond},
		{"404 never lowers", 300 * time.Millisecond, 0, 100 * time.Millisecond, 404, 300 * time.Millisecond},
		{"503 may raise", 100 * time.Millisecond, 0, 600 * time.Millisecond, 503, 300 * time.Millisecond},
	} {
		if got := at.Next(tt.d, tt.base, tt.latency, tt.status); got != tt.want {
			t.Errorf("%s: Next = %v; want %v", tt.name, got, tt.want)
		}
	}
}

// Releases without a latency leave the delay alone, the state reports it,
// and settings that make no sense are refused.
func TestAutoThrottleState(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t, WithFloor(20*time.Millisecond), WithAutoThrottle(AutoThrottle{StartDelay: 10 * time.Millisecond}))
	const a = "http://a.example"
	if s := p.State(a); s.Interval != 20*time.Millisecond {
		t.Fatalf("unseen authority interval %v; want the floor", s.Interval)
	}
	p.TryAcquire(ctx, a)
	if s := p.State(a); s.ThrottleDelay != 20*time.Millisecond {
		t.Fatalf("start throttle delay %v; want max(start, floor) = 20ms", s.ThrottleDelay)
	}
	clk.Advance(time.Second)
	p.Release(ctx, a, Feedback{Status: 200}) // no latency
	if s := p.State(a); s.ThrottleDelay != 20*time.Millisecond {
		t.Errorf("a release without latency moved the delay to %v", s.ThrottleDelay)
	}
	snap := p.Snapshot()
	p2, _ := newTestPacer(t, WithFloor(0), WithAutoThrottle(AutoThrottle{}))
	p2.Restore(snap)
	if s := p2.State(a); s.ThrottleDelay != DefaultThrottleStartDelay {
		t.Errorf("restored throttle delay %v; want the larger of the saved and the start delay", s.ThrottleDelay)
	}
	for _, bad := range []AutoThrottle{{TargetConcurrency: -1}, {StartDelay: -time.Second}} {
		if _, err := New(WithAutoThrottle(bad)); err == nil || !strings.Contains(err.Error(), "autothrottle") {
			t.Errorf("New(WithAutoThrottle(%+v)) = %v; want an autothrottle error", bad, err)
		}
	}
}

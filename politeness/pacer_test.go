package politeness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// heed's frontier.Gate, restated so that this package need not import it.
var _ interface{ ReadyAt(string) time.Time } = (*Pacer)(nil)

const hostA, hostB = "https://a.test", "https://b.test"

func TestNewRejectsNonsense(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string // substring of the error; empty means valid
	}{
		{"defaults", nil, ""},
		{"zero floor", WithFloor(0), ""},
		{"backoff off", WithBackoff(0, 0), ""},
		{"negative floor", WithFloor(-time.Second), "negative floor"},
		{"zero concurrency", WithConcurrency(0), "concurrency 0"},
		{"negative cap", WithMaxCrawlDelay(-1), "crawl-delay cap"},
		{"base above max", WithBackoff(time.Minute, time.Second), "above its max"},
		{"base zero", WithBackoff(0, time.Second), "cannot grow"},
		{"negative backoff", WithBackoff(-1, time.Second), "negative backoff"},
		{"negative pause cap", WithMaxPause(-1), "pause cap"},
		{"nil clock", WithClock(nil), "nil clock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.opt)
			if tt.want == "" {
				if err != nil || p == nil {
					t.Fatalf("New = %v, %v; want a Pacer", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v; want one containing %q", err, tt.want)
			}
		})
	}
}

func TestIntervalIsMaxOfFloorAndCrawlDelay(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		floor      time.Duration
		crawlDelay time.Duration
		want       time.Duration
	}{
		{"floor only", time.Second, 0, time.Second},
		{"delay below floor", time.Second, 500 * time.Millisecond, time.Second},
		{"fractional delay above floor", time.Second, 2500 * time.Millisecond, 2500 * time.Millisecond},
		{"fractional delay, zero floor", 0, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"thirds", 250 * time.Millisecond, 333333333 * time.Nanosecond, 333333333 * time.Nanosecond},
		{"odd nanoseconds", 100 * time.Millisecond, 1234567891, 1234567891},
		{"delay at the cap", time.Second, DefaultMaxCrawlDelay, DefaultMaxCrawlDelay},
		{"no spacing", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, clk := newTestPacer(t, WithFloor(tt.floor))
			if err := p.SetCrawlDelay(ctx, hostA, tt.crawlDelay); err != nil {
				t.Fatalf("SetCrawlDelay: %v", err)
			}
			if got := p.State(hostA).Interval; got != tt.want {
				t.Fatalf("Interval = %v; want %v", got, tt.want)
			}
			t0 := clk.Now()
			mustAcquire(t, p, hostA)
			p.Release(ctx, hostA, Feedback{Status: 200})
			if tt.want == 0 {
				if r := p.ReadyAt(hostA); r.After(t0) {
					t.Fatalf("ReadyAt = %v; want now", r)
				}
				mustAcquire(t, p, hostA)
				return
			}
			want := t0.Add(tt.want)
			if r := p.ReadyAt(hostA); !r.Equal(want) {
				t.Fatalf("ReadyAt = %v; want %v", r, want)
			}
			clk.Advance(tt.want - 1)
			mustRefuse(t, p, hostA, want)
			clk.Advance(1)
			mustAcquire(t, p, hostA)
		})
	}
}

// TestSpacingIsExact guards against the limiter's float64 arithmetic: a
// start is never allowed a nanosecond early, and the time ReadyAt gives,
// with the request in flight or after its release, is always good for
// TryAcquire.
func TestSpacingIsExact(t *testing.T) {
	ctx := context.Background()
	for ms := 1; ms < 40000; ms += 97 {
		iv := time.Duration(ms)*time.Millisecond + time.Duration(ms%13)*time.Microsecond + time.Duration(ms%7)
		p, clk := newTestPacer(t, WithFloor(0), WithMaxCrawlDelay(time.Hour))
		if err := p.SetCrawlDelay(ctx, hostA, iv); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			start := clk.Now()
			mustAcquire(t, p, hostA)
			if r := p.ReadyAt(hostA); r.Before(start.Add(iv)) || r.After(start.Add(iv+1)) {
				t.Fatalf("interval %v: in flight, ReadyAt %v after start; want %v", iv, r.Sub(start), iv)
			}
			// Released at once, so that both anchors fall on start+iv
			// and the limiter's rounding is what decides.
			p.Release(ctx, hostA, Feedback{Status: 200})
			clk.Advance(iv - 1)
			if ok, _, _ := p.TryAcquire(ctx, hostA); ok {
				t.Fatalf("interval %v: start allowed %v after the previous", iv, clk.Now().Sub(start))
			}
			r := p.ReadyAt(hostA)
			if r.Before(start.Add(iv)) || r.After(start.Add(iv+1)) {
				t.Fatalf("interval %v: ReadyAt %v after start; want %v", iv, r.Sub(start), iv)
			}
			clk.AdvanceTo(r) // the next iteration's mustAcquire checks r is good
		}
	}
}

// TestLimiterLaterThanAnchors covers a limiter that allows a start later
// than the anchors do (here by a reservation made behind the Pacer's back):
// ReadyAt and TryAcquire both answer with the limiter's time, whether the
// previous request is in flight or released.
func TestLimiterLaterThanAnchors(t *testing.T) {
	ctx := context.Background()
	reserveBehindTheBack := func(p *Pacer, at time.Time) {
		a := p.lookup(hostA)
		a.mu.Lock()
		a.lim.ReserveN(at, 1) // the token due one interval after the start
		a.mu.Unlock()
	}
	t.Run("released", func(t *testing.T) {
		p, clk := newTestPacer(t)
		t0 := clk.Now()
		mustAcquire(t, p, hostA)
		p.Release(ctx, hostA, Feedback{Status: 200})
		reserveBehindTheBack(p, t0.Add(500*time.Millisecond))
		want := t0.Add(2 * time.Second)
		if r := p.ReadyAt(hostA); !r.Equal(want) {
			t.Fatalf("ReadyAt = +%v; want +%v", r.Sub(t0), want.Sub(t0))
		}
		clk.Advance(time.Second) // the anchors allow a start now; the limiter does not
		mustRefuse(t, p, hostA, want)
		clk.AdvanceTo(want)
		mustAcquire(t, p, hostA)
	})
	t.Run("in flight", func(t *testing.T) {
		p, clk := newTestPacer(t)
		t0 := clk.Now()
		mustAcquire(t, p, hostA)
		reserveBehindTheBack(p, t0.Add(500*time.Millisecond))
		// A release now would allow t0+1s; the limiter says t0+2s.
		want := t0.Add(2 * time.Second)
		if r := p.ReadyAt(hostA); !r.Equal(want) {
			t.Fatalf("ReadyAt = +%v; want +%v", r.Sub(t0), want.Sub(t0))
		}
		mustRefuse(t, p, hostA, want)
		clk.Advance(1500 * time.Millisecond) // now an interval from now is later
		want = t0.Add(2500 * time.Millisecond)
		if r := p.ReadyAt(hostA); !r.Equal(want) {
			t.Fatalf("ReadyAt = +%v; want +%v", r.Sub(t0), want.Sub(t0))
		}
		mustRefuse(t, p, hostA, want)
		p.Release(ctx, hostA, Feedback{Status: 200})
		clk.AdvanceTo(want)
		mustAcquire(t, p, hostA)
	})
}

func TestCompletionAnchoring(t *testing.T) {
	p, clk := newTestPacer(t) // floor 1 s
	t0 := clk.Now()
	mustAcquire(t, p, hostA)
	clk.Advance(5 * time.Second) // a slow response
	p.Release(context.Background(), hostA, Feedback{Status: 200})
	want := t0.Add(6 * time.Second)
	if r := p.ReadyAt(hostA); !r.Equal(want) {
		t.Fatalf("ReadyAt = %v; want release + interval %v", r.Sub(t0), want.Sub(t0))
	}
	clk.Advance(time.Second - 1)
	mustRefuse(t, p, hostA, want)
	clk.Advance(1)
	mustAcquire(t, p, hostA)
	if s := p.State(hostA); !s.LastStart.Equal(want) || !s.LastRelease.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("State = %+v", s)
	}
}

func TestCrawlDelayAppliesSinceLastStart(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t)
	t0 := clk.Now()
	mustAcquire(t, p, hostA) // e.g. the robots.txt fetch itself
	clk.Advance(100 * time.Millisecond)
	p.Release(ctx, hostA, Feedback{Status: 200})
	if err := p.SetCrawlDelay(ctx, hostA, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	want := t0.Add(10100 * time.Millisecond)
	if r := p.ReadyAt(hostA); !r.Equal(want) {
		t.Fatalf("ReadyAt = %v; want %v", r.Sub(t0), want.Sub(t0))
	}
	clk.AdvanceTo(t0.Add(10 * time.Second)) // start anchor passed, completion anchor not
	mustRefuse(t, p, hostA, want)
}

func TestCrawlDelayCap(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		opts     []Option
		delay    time.Duration
		excluded bool
		cap      time.Duration
	}{
		{"at the default cap", nil, 30 * time.Second, false, 0},
		{"above the default cap", nil, 30*time.Second + 1, true, 30 * time.Second},
		{"hours", nil, 4 * time.Hour, true, 30 * time.Second},
		{"custom cap", []Option{WithMaxCrawlDelay(10 * time.Second)}, 11 * time.Second, true, 10 * time.Second},
		{"zero cap", []Option{WithMaxCrawlDelay(0)}, time.Millisecond, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newTestPacer(t, tt.opts...)
			err := p.SetCrawlDelay(ctx, hostA, tt.delay)
			var tooLong *DelayTooLongError
			if got := errors.As(err, &tooLong); got != tt.excluded {
				t.Fatalf("SetCrawlDelay error = %v; excluded want %v", err, tt.excluded)
			}
			ok, at, aerr := p.TryAcquire(ctx, hostA)
			if !tt.excluded {
				if !ok || aerr != nil {
					t.Fatalf("TryAcquire = %v, %v, %v; want ok", ok, at, aerr)
				}
				return
			}
			want := DelayTooLongError{Authority: hostA, Delay: tt.delay, Cap: tt.cap}
			if *tooLong != want {
				t.Fatalf("error = %+v; want %+v", *tooLong, want)
			}
			var again *DelayTooLongError
			if ok || !at.IsZero() || !errors.As(aerr, &again) || *again != want {
				t.Fatalf("TryAcquire = %v, %v, %v; want the DelayTooLongError", ok, at, aerr)
			}
			if err := p.Wait(ctx, hostA); !errors.As(err, &again) {
				t.Fatalf("Wait = %v; want the DelayTooLongError", err)
			}
			if r := p.ReadyAt(hostA); !r.IsZero() {
				t.Fatalf("ReadyAt = %v; an excluded authority is ready at once", r)
			}
			s := p.State(hostA)
			if !s.Excluded || s.CrawlDelay != tt.delay || s.InFlight != 0 {
				t.Fatalf("State = %+v", s)
			}
			// A refreshed robots.txt within the cap lifts the exclusion.
			if err := p.SetCrawlDelay(ctx, hostA, 0); err != nil {
				t.Fatalf("SetCrawlDelay(0) = %v", err)
			}
			if ok, _, err := p.TryAcquire(ctx, hostA); !ok || err != nil {
				t.Fatalf("after lifting: TryAcquire = %v, %v", ok, err)
			}
		})
	}
}

func TestSetCrawlDelayNegative(t *testing.T) {
	p, _ := newTestPacer(t)
	err := p.SetCrawlDelay(context.Background(), hostA, -time.Second)
	var tooLong *DelayTooLongError
	if err == nil || errors.As(err, &tooLong) {
		t.Fatalf("SetCrawlDelay(-1s) = %v; want a plain error", err)
	}
	if s := p.State(hostA); s.CrawlDelay != 0 || s.Interval != DefaultFloor {
		t.Fatalf("State = %+v; want unchanged", s)
	}
}

func TestReadyAtNeverReserves(t *testing.T) {
	p, clk := newTestPacer(t, WithConcurrency(2))
	mustAcquire(t, p, hostA)
	p.Release(context.Background(), hostA, Feedback{Status: 503}) // some backoff state too
	before := p.State(hostA)
	t0 := clk.Now()
	for i := 0; i < 1000; i++ {
		if i%100 == 0 {
			clk.Advance(10 * time.Millisecond)
		}
		if r := p.ReadyAt(hostA); !r.Equal(t0.Add(time.Second)) {
			t.Fatalf("ReadyAt call %d = %v; want %v", i, r.Sub(t0), time.Second)
		}
	}
	if after := p.State(hostA); after != before {
		t.Fatalf("State changed by ReadyAt:\n%+v\n%+v", before, after)
	}
	for i := 0; i < 1000; i++ {
		_ = p.ReadyAt("https://never-seen.test")
	}
	if n := p.Len(); n != 1 {
		t.Fatalf("Len = %d; ReadyAt must not create state", n)
	}
	clk.AdvanceTo(t0.Add(time.Second))
	mustAcquire(t, p, hostA)
}

func TestPauseIsPerAuthority(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t)
	t0 := clk.Now()
	mustAcquire(t, p, hostA)
	mustAcquire(t, p, hostB)
	p.Release(ctx, hostA, Feedback{Status: 429, RetryAfter: "600"})
	p.Release(ctx, hostB, Feedback{Status: 200})
	for _, other := range []string{hostB, "http://a.test", "https://a.test:8443"} {
		clk.AdvanceTo(t0.Add(time.Second))
		if r := p.ReadyAt(other); r.After(clk.Now()) {
			t.Fatalf("ReadyAt(%s) = %v; want ready", other, r.Sub(t0))
		}
		mustAcquire(t, p, other)
		p.Release(ctx, other, Feedback{Status: 200})
	}
	mustRefuse(t, p, hostA, t0.Add(10*time.Minute))
}

func TestWait(t *testing.T) {
	t.Run("books after the interval", func(t *testing.T) {
		p, clk := newTestPacer(t)
		t0 := clk.Now()
		mustAcquire(t, p, hostA)
		p.Release(context.Background(), hostA, Feedback{Status: 200})
		done := make(chan error, 1)
		go func() { done <- p.Wait(context.Background(), hostA) }()
		waitFor(t, "Wait's timer", func() bool { return clk.pending() == 1 })
		clk.Advance(time.Second)
		if err := <-done; err != nil {
			t.Fatalf("Wait = %v", err)
		}
		if s := p.State(hostA); s.InFlight != 1 || !s.LastStart.Equal(t0.Add(time.Second)) {
			t.Fatalf("State = %+v; want a start booked at t0+1s", s)
		}
	})
	t.Run("woken by a release", func(t *testing.T) {
		p, _ := newTestPacer(t, WithFloor(0))
		mustAcquire(t, p, hostA)
		done := make(chan error, 1)
		go func() { done <- p.Wait(context.Background(), hostA) }()
		a := p.lookup(hostA)
		waitFor(t, "Wait to block", func() bool {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.wake != nil
		})
		p.Release(context.Background(), hostA, Feedback{Status: 200})
		if err := <-done; err != nil {
			t.Fatalf("Wait = %v", err)
		}
		if s := p.State(hostA); s.InFlight != 1 {
			t.Fatalf("InFlight = %d; want Wait's booking", s.InFlight)
		}
	})
	t.Run("honours cancellation", func(t *testing.T) {
		p, clk := newTestPacer(t)
		mustAcquire(t, p, hostA) // the slot is taken and never released
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Wait(ctx, hostA) }()
		waitFor(t, "Wait's timer", func() bool { return clk.pending() == 1 })
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Wait = %v; want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Wait did not return after cancellation")
		}
		if s := p.State(hostA); s.InFlight != 1 {
			t.Fatalf("InFlight = %d; a cancelled Wait books nothing", s.InFlight)
		}
	})
	t.Run("cancelled before the call", func(t *testing.T) {
		p, _ := newTestPacer(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := p.Wait(ctx, hostA); !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait = %v; want context.Canceled", err)
		}
		if s := p.State(hostA); s.InFlight != 0 {
			t.Fatalf("InFlight = %d; want nothing booked", s.InFlight)
		}
	})
}

func TestReleaseWithoutAcquire(t *testing.T) {
	ctx := context.Background()
	p, clk := newTestPacer(t)
	p.Release(ctx, hostA, Feedback{Status: 200})
	p.Release(ctx, hostA, Feedback{Status: 200})
	s := p.State(hostA)
	if s.InFlight != 0 || !s.LastRelease.Equal(clk.Now()) {
		t.Fatalf("State = %+v; want no negative count and the release anchored", s)
	}
	mustRefuse(t, p, hostA, clk.Now().Add(time.Second))
}

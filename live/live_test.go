package live_test

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/live"
	"github.com/heedcrawl/heed/politeness"
)

// queue is a frontier's counts, fixed.
type queue map[string]int

func (q queue) Stats() frontier.Stats {
	s := frontier.Stats{ByAuthority: map[string]int{}}
	for a, n := range q {
		s.ByAuthority[a] = n
		s.Queued += n
	}
	return s
}

// waiting is a robots stage whose listed authorities wait for robots.txt.
type waiting map[string]bool

func (w waiting) Waiting(a string) bool { return w[a] }

// clock is a manual politeness.Clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time                         { return c.now }
func (c *clock) After(d time.Duration) <-chan time.Time { return make(chan time.Time) }

// TestHostsCountsEachAuthorityOnce: an authority with a request in flight
// is active whether or not it has URLs queued; one with URLs queued is
// robots when it waits for its robots.txt, else paused while its pause
// lasts, else waiting; one with nothing queued and nothing in flight is
// not counted.
func TestHostsCountsEachAuthorityOnce(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	p, err := politeness.New(politeness.WithClock(clk), politeness.WithFloor(time.Second), politeness.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"http://active-queued", "http://active-alone"} {
		if ok, _, _ := p.TryAcquire(ctx, a); !ok {
			t.Fatalf("start to %s refused", a)
		}
	}
	for _, a := range []string{"http://paused", "http://robots-and-paused", "http://idle"} {
		p.TryAcquire(ctx, a)
		status := 200
		if a != "http://idle" {
			status = 429
		}
		p.Release(ctx, a, politeness.Feedback{Status: status, RetryAfter: "60"})
	}
	q := queue{
		"http://active-queued": 3, "http://paused": 2, "http://robots-and-paused": 1,
		"http://robots": 4, "http://idle": 5, "http://never-paced": 1, "http://empty": 0,
	}
	v := live.New(q, p, p, waiting{"http://robots": true, "http://robots-and-paused": true})
	want := live.Hosts{Active: 2, Robots: 2, Paused: 1, Waiting: 2, Paced: true}
	if got := v.Hosts(clk.now); got != want {
		t.Errorf("Hosts = %+v, want %+v", got, want)
	}
	clk.now = clk.now.Add(2 * time.Minute) // the pauses are over
	want = live.Hosts{Active: 2, Robots: 2, Paused: 0, Waiting: 3, Paced: true}
	if got := v.Hosts(clk.now); got != want {
		t.Errorf("after the pauses, Hosts = %+v, want %+v", got, want)
	}
	// Without a pacer here (pacing kept in Redis), every queued authority
	// not waiting for robots.txt is waiting.
	unpaced := live.New(q, nil, nil, waiting{"http://robots": true})
	want = live.Hosts{Robots: 1, Waiting: 5}
	if got := unpaced.Hosts(clk.now); got != want {
		t.Errorf("unpaced Hosts = %+v, want %+v", got, want)
	}
	if unpaced.Pacing() != nil || unpaced.Starts() != nil || !unpaced.ReadyAt("http://paused").IsZero() {
		t.Error("a view without a pacer shows pacing")
	}
}

// snapshotBusy is a pacer whose Busy filters its whole Snapshot: what
// Hosts cost before the pacer indexed its busy authorities.
type snapshotBusy struct{ *politeness.Pacer }

func (s snapshotBusy) Busy() map[string]politeness.AuthorityState {
	out := map[string]politeness.AuthorityState{}
	for a, st := range s.Snapshot() {
		if st.InFlight > 0 || st.PausedUntil.After(time.Now()) {
			out[a] = st
		}
	}
	return out
}

// BenchmarkHosts is one progress-line refresh of a crawl that has seen
// 10,000 authorities, 32 with a request in flight and 1,000 with URLs
// queued: with the pacer's busy index, and with the whole snapshot
// filtered, in the same run.
func BenchmarkHosts(b *testing.B) {
	ctx := context.Background()
	p, _ := politeness.New(politeness.WithFloor(0), politeness.WithConcurrency(1))
	q := queue{}
	for i := range 10_000 {
		a := "https://host-" + strconv.Itoa(i) + ".example"
		p.TryAcquire(ctx, a)
		if i >= 32 {
			p.Release(ctx, a, politeness.Feedback{Status: 200})
		}
		if i < 1000 {
			q[a] = 1 + i%7
		}
	}
	for _, bc := range []struct {
		name  string
		pacer live.Pacer
	}{{"busy-index", p}, {"whole-snapshot", snapshotBusy{p}}} {
		v := live.New(q, bc.pacer, nil, nil)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if h := v.Hosts(time.Now()); h.Active != 32 || h.Waiting != 1000-32 {
					b.Fatalf("Hosts = %+v", h)
				}
			}
		})
	}
}

package politeness

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock is a manual Clock: time moves only when a test calls Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

var epoch = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{now: epoch} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock on by d and fires the timers that are due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

// AdvanceTo moves the clock to t (never backwards).
func (c *fakeClock) AdvanceTo(t time.Time) {
	if d := t.Sub(c.Now()); d > 0 {
		c.Advance(d)
	}
}

// pending returns the number of timers not yet fired.
func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// waitFor polls cond for up to 5 s of real time; tests use it to know that a
// goroutine has reached a blocking point.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// newTestPacer returns a Pacer on a fake clock with opts.
func newTestPacer(t testing.TB, opts ...Option) (*Pacer, *fakeClock) {
	t.Helper()
	clk := newFakeClock()
	p, err := New(append([]Option{WithClock(clk)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p, clk
}

// mustAcquire books a start to a and fails the test if it cannot.
func mustAcquire(t *testing.T, p *Pacer, a string) {
	t.Helper()
	ok, at, err := p.TryAcquire(context.Background(), a)
	if err != nil || !ok {
		t.Fatalf("TryAcquire(%s) = %v, %v, %v; want ok", a, ok, at, err)
	}
}

// mustRefuse asserts TryAcquire refuses a start with the given retry time.
func mustRefuse(t *testing.T, p *Pacer, a string, wantAt time.Time) {
	t.Helper()
	ok, at, err := p.TryAcquire(context.Background(), a)
	if err != nil || ok || !at.Equal(wantAt) {
		t.Fatalf("TryAcquire(%s) = %v, %v, %v; want refused until %v", a, ok, at, err, wantAt)
	}
}

package frontier

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// manualClock is a clock and timer source that moves only when told, so
// that scheduling tests never sleep for the times they schedule.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
	armed  int
}

type manualTimer struct {
	at      time.Time
	fn      func()
	stopped bool
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, fn func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{at: c.now.Add(d), fn: fn}
	c.timers = append(c.timers, t)
	c.armed++
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock and fires the timers that are due, each in its
// own goroutine as time.AfterFunc does.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	kept := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			t.stopped = true
			due = append(due, t.fn)
		default:
			kept = append(kept, t)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	for _, fn := range due {
		go fn()
	}
}

func (c *manualClock) options() []Option {
	return []Option{WithClock(c.Now), WithAfterFunc(c.AfterFunc)}
}

// countingGate is a Gate with per-authority ready times that counts calls.
type countingGate struct {
	mu    sync.Mutex
	at    map[string]time.Time
	calls atomic.Int64
}

func (g *countingGate) set(auth string, t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.at == nil {
		g.at = make(map[string]time.Time)
	}
	g.at[auth] = t
}

func (g *countingGate) ReadyAt(auth string) time.Time {
	g.calls.Add(1)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.at[auth]
}

// nextAsync calls Next in a goroutine and returns a channel for its result.
type nextResult struct {
	req *Request
	err error
}

func nextAsync(m *Memory) <-chan nextResult {
	ch := make(chan nextResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := m.Next(ctx)
		ch <- nextResult{r, err}
	}()
	return ch
}

// waitFor polls cond (bounded) until it holds: used only to let a
// goroutine reach a blocking call, never to measure time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 2000; i++ {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func (m *Memory) waiterCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, _, n := m.sched.Len()
	return n
}

func mustPush(t *testing.T, m *Memory, urls ...string) {
	t.Helper()
	for _, u := range urls {
		if res, err := m.Push(context.Background(), &Request{URL: u}); res != Added || err != nil {
			t.Fatalf("Push(%s) = %v, %v", u, res, err)
		}
	}
}

func TestMemorySlowAuthorityOnManualClock(t *testing.T) {
	clock := newManualClock()
	g := &countingGate{}
	g.set("http://slow.example", clock.Now().Add(time.Hour))
	m := NewMemory(append(clock.options(), WithGate(g))...)
	defer m.Close()
	mustPush(t, m, "http://slow.example/1", "http://fast.example/1", "http://fast.example/2")

	for i := 0; i < 2; i++ {
		r, err := m.Next(context.Background())
		if err != nil || r.Authority() != "http://fast.example" {
			t.Fatalf("Next = %v, %v; want fast.example while slow.example waits an hour", r, err)
		}
		m.Done(context.Background(), r)
	}
	res := nextAsync(m)
	waitFor(t, "Next to block", func() bool { return m.waiterCount() == 1 })

	// Blocked, Next neither polls the gate nor re-arms timers.
	calls, armed := g.calls.Load(), clock.armedCount()
	time.Sleep(50 * time.Millisecond)
	if c, a := g.calls.Load(), clock.armedCount(); c != calls || a != armed {
		t.Errorf("while blocked: %d gate calls and %d timers armed; want none", c-calls, a-armed)
	}
	if armed > 2 {
		t.Errorf("%d timers armed for one waiting authority", armed)
	}

	clock.Advance(59 * time.Minute)
	select {
	case r := <-res:
		t.Fatalf("Next returned %v before the authority was ready", r)
	case <-time.After(20 * time.Millisecond):
	}
	clock.Advance(time.Minute)
	r := <-res
	if r.err != nil || r.req.URL != "http://slow.example/1" {
		t.Fatalf("Next after the hour = %v, %v", r.req, r.err)
	}
}

func (c *manualClock) armedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

func TestMemoryGateMovesLaterOnManualClock(t *testing.T) {
	clock := newManualClock()
	start := clock.Now()
	g := &countingGate{}
	g.set("http://a.example", start.Add(time.Minute))
	m := NewMemory(append(clock.options(), WithGate(g))...)
	defer m.Close()
	mustPush(t, m, "http://a.example/1")
	res := nextAsync(m)
	waitFor(t, "Next to block", func() bool { return m.waiterCount() == 1 })

	g.set("http://a.example", start.Add(3*time.Minute)) // a 429 paused the host
	clock.Advance(time.Minute)
	// The timer fired and the waiter re-asked the gate: it must sleep again.
	waitFor(t, "the waiter to sleep again", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		_, waiting, waiters := m.sched.Len()
		at, _ := m.sched.NextReady()
		return waiting == 1 && at.Equal(start.Add(3*time.Minute)) && waiters != 0
	})
	select {
	case r := <-res:
		t.Fatalf("Next returned %v at +1m; the gate said +3m", r)
	default:
	}
	clock.Advance(2 * time.Minute)
	if r := <-res; r.err != nil || r.req.URL != "http://a.example/1" {
		t.Fatalf("Next = %v, %v", r.req, r.err)
	}
}

func TestMemoryRetryHoldOnManualClock(t *testing.T) {
	clock := newManualClock()
	m := NewMemory(clock.options()...)
	defer m.Close()
	mustPush(t, m, "http://a.example/1", "http://a.example/2", "http://b.example/1")
	ctx := context.Background()
	r, _ := m.Next(ctx)
	if r.URL != "http://a.example/1" {
		t.Fatalf("Next = %s", r.URL)
	}
	if err := m.Retry(ctx, r, clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if b, _ := m.Next(ctx); b.URL != "http://b.example/1" {
		t.Fatalf("Next = %s; want b.example while a.example is held", b.URL)
	}
	res := nextAsync(m)
	waitFor(t, "Next to block", func() bool { return m.waiterCount() == 1 })
	clock.Advance(10 * time.Minute)
	if got := <-res; got.err != nil || got.req.URL != "http://a.example/1" {
		t.Fatalf("Next after the hold = %v, %v", got.req, got.err)
	}
}

// A Push wakes one waiter, not all of them.
func TestMemoryPushWakesOneWaiter(t *testing.T) {
	m := NewMemory()
	defer m.Close()
	mustPush(t, m, "http://a.example/0")
	held, _ := m.Next(context.Background()) // keeps the frontier from exhaustion
	const n = 20
	results := make([]<-chan nextResult, n)
	for i := range results {
		results[i] = nextAsync(m)
	}
	waitFor(t, "waiters to block", func() bool { return m.waiterCount() == n })
	mustPush(t, m, "http://b.example/1")
	woken := n - m.waiterCount()
	if woken > 1 {
		t.Errorf("one Push woke %d waiters", woken)
	}
	mustPush(t, m, "http://c.example/1", "http://d.example/1")
	got := 0
	for got < 3 {
		for i, ch := range results {
			if ch == nil {
				continue
			}
			select {
			case r := <-ch:
				if r.err != nil {
					t.Fatalf("waiter: %v", r.err)
				}
				results[i] = nil
				got++
			default:
			}
		}
		time.Sleep(time.Millisecond)
	}
	// The three handed out are still leased, so the other waiters wait on
	// until Close.
	m.Done(context.Background(), held)
	m.Close()
	for _, ch := range results {
		if ch != nil {
			if r := <-ch; !errors.Is(r.err, ErrClosed) {
				t.Errorf("waiter after Close: %v", r.err)
			}
		}
	}
}

// Next is not O(authorities): with 100,000 authorities waiting on the
// gate, handing out the one ready authority's requests asks the gate a
// bounded number of times per request.
func TestMemoryNextDoesNotScanAuthorities(t *testing.T) {
	clock := newManualClock()
	g := &countingGate{}
	const n = 100_000
	later := clock.Now().Add(time.Hour)
	for i := 0; i < n; i++ {
		g.set(fmt.Sprintf("http://h%d.example", i), later)
	}
	m := NewMemory(append(clock.options(), WithGate(g))...)
	defer m.Close()
	for i := 0; i < n; i++ {
		mustPush(t, m, fmt.Sprintf("http://h%d.example/", i))
	}
	for i := 0; i < 100; i++ {
		mustPush(t, m, fmt.Sprintf("http://ready.example/%d", i))
	}
	ctx := context.Background()
	r, err := m.Next(ctx) // moves the authorities that are not ready to the waiting heap
	if err != nil || r.Authority() != "http://ready.example" {
		t.Fatalf("Next = %v, %v", r, err)
	}
	m.Done(ctx, r)
	before := g.calls.Load()
	for i := 1; i < 100; i++ {
		r, err := m.Next(ctx)
		if err != nil || r.Authority() != "http://ready.example" {
			t.Fatalf("Next = %v, %v", r, err)
		}
		m.Done(ctx, r)
	}
	if per := float64(g.calls.Load()-before) / 99; per > 2 {
		t.Errorf("%.1f gate calls per Next with %d authorities waiting; want at most 2", per, n)
	}
	if st := m.Stats(); st.Queued != n || len(st.ByAuthority) != n {
		t.Errorf("Stats: %d queued over %d authorities", st.Queued, len(st.ByAuthority))
	}
}

func TestMemoryForgetsIdleAuthorities(t *testing.T) {
	m := NewMemory()
	defer m.Close()
	mustPush(t, m, "http://a.example/1", "http://b.example/1")
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		r, _ := m.Next(ctx)
		m.Done(ctx, r)
	}
	if ready, waiting, _ := m.sched.Len(); len(m.auths) != 0 || ready != 0 || waiting != 0 {
		t.Errorf("after all Done: %d authorities, %d ready, %d waiting", len(m.auths), ready, waiting)
	}
}

func TestNewConfig(t *testing.T) {
	c := NewConfig(WithLeasesPerAuthority(0), WithClock(nil), WithAfterFunc(nil), nil)
	if c.LeasesPerAuthority != 1 || c.Now == nil || c.AfterFunc == nil || c.Order != BreadthFirst || c.Gate != nil {
		t.Errorf("NewConfig with bad values = %+v", c)
	}
	if BreadthFirst.String() != "breadth-first" || DepthFirst.String() != "depth-first" || Order(9).String() != "unknown" {
		t.Error("Order.String")
	}
	if Added.String() != "added" || Duplicate.String() != "duplicate" || Rejected.String() != "rejected" {
		t.Error("PushResult.String")
	}
}

// A panicking admission function leaves the frontier usable.
func TestMemoryAdmitPanic(t *testing.T) {
	m := NewMemory(WithAdmit(func(r *Request) error {
		if r.URL == "http://a.example/panic" {
			panic("admission bug")
		}
		return nil
	}))
	defer m.Close()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the admission function's panic did not reach the caller")
			}
		}()
		m.Push(context.Background(), &Request{URL: "http://a.example/panic"})
	}()
	mustPush(t, m, "http://a.example/ok")
	if r, err := m.Next(context.Background()); err != nil || r.URL != "http://a.example/ok" {
		t.Fatalf("Next after a panic in Push = %v, %v", r, err)
	}
}

package redispacer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/redis/go-redis/v9"
)

var (
	_ middleware.Pacer      = (*redispacer.Pacer)(nil)
	_ redisstore.StoredGate = (*redispacer.Pacer)(nil)
)

var prefixes atomic.Int64

func newPrefix() string {
	return fmt.Sprintf("heedtest:pace:%d:%d:", time.Now().UnixNano()%1e6, prefixes.Add(1))
}

// clock is a shared time offset that moves the crawl's clock forward.
type clock struct{ off atomic.Int64 }

func (c *clock) offset() time.Duration   { return time.Duration(c.off.Load()) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

// env is one crawl's Redis, clock and prefix, from which a test makes as
// many pacers ("processes") as it wants.
type env struct {
	t      *testing.T
	srv    *redistest.Server
	rdb    *redis.Client
	clk    clock
	prefix string
}

func newEnv(t *testing.T) *env {
	srv := redistest.Start(t)
	return &env{t: t, srv: srv, rdb: srv.Client(t), prefix: newPrefix()}
}

func (e *env) store(opts ...redisstore.StoreOption) *redisstore.Store {
	e.t.Helper()
	opts = append([]redisstore.StoreOption{redisstore.WithTimeOffset(e.clk.offset)}, opts...)
	s, err := redisstore.NewStore(e.rdb, e.prefix, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) pacer(opts ...redispacer.Option) *redispacer.Pacer {
	e.t.Helper()
	p, err := redispacer.New(e.store(), opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { p.Close() })
	return p
}

const site = "https://example.com"

func mustAcquire(t *testing.T, p *redispacer.Pacer, what string) {
	t.Helper()
	ok, at, err := p.TryAcquire(context.Background(), site)
	if !ok || err != nil {
		t.Fatalf("%s: TryAcquire = %v, %v (retry in %v), %v; want ok", what, ok, at, time.Until(at), err)
	}
}

// mustWait checks that TryAcquire refuses and asks to retry between lo
// and hi from now.
func mustWait(t *testing.T, p *redispacer.Pacer, what string, lo, hi time.Duration) {
	t.Helper()
	ok, at, err := p.TryAcquire(context.Background(), site)
	if ok || err != nil {
		t.Fatalf("%s: TryAcquire = %v, %v; want a refusal", what, ok, err)
	}
	if d := time.Until(at); d < lo || d > hi {
		t.Fatalf("%s: retry in %v; want between %v and %v", what, d, lo, hi)
	}
}

// The in-process pacer's model, on the crawl's clock: the interval from the
// last start and from the last release, one start in flight.
func TestAnchorsOnStartAndRelease(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	p := e.pacer(redispacer.WithFloor(10 * time.Second))
	mustAcquire(t, p, "first")
	mustWait(t, p, "in flight", 9*time.Second, 10*time.Second)
	e.clk.advance(8 * time.Second)
	p.Release(ctx, site, politeness.Feedback{Status: 200})
	// Ten seconds from the release, not from the start.
	e.clk.advance(3 * time.Second)
	mustWait(t, p, "3 s after the release", 6*time.Second, 7*time.Second)
	if got := time.Until(p.ReadyAt(site)); got < 6*time.Second || got > 7*time.Second {
		t.Errorf("ReadyAt in %v; want about 7 s", got)
	}
	e.clk.advance(7*time.Second + 100*time.Millisecond)
	mustAcquire(t, p, "10 s after the release")
	st, err := p.State(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlight != 1 || st.Interval != 10*time.Second || st.LastStart.IsZero() || st.LastRelease.IsZero() {
		t.Errorf("State = %+v", st)
	}
}

// Two processes share one pacing: what one books, the other waits for.
func TestTwoProcessesSharePacing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	a, b := e.pacer(redispacer.WithFloor(5*time.Second)), e.pacer(redispacer.WithFloor(5*time.Second))
	mustAcquire(t, a, "a")
	mustWait(t, b, "b while a's request is in flight", 4*time.Second, 5*time.Second)
	a.Release(ctx, site, politeness.Feedback{Status: 200})
	e.clk.advance(4 * time.Second)
	mustWait(t, b, "b 4 s after a's release", 0, time.Second)
	e.clk.advance(1100 * time.Millisecond)
	mustAcquire(t, b, "b 5 s after a's release")
	if st, _ := a.State(ctx, site); st.InFlight != 1 {
		t.Errorf("a sees %d in flight; want b's 1", st.InFlight)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	a, b := e.pacer(redispacer.WithFloor(0), redispacer.WithConcurrency(2)), e.pacer(redispacer.WithFloor(0), redispacer.WithConcurrency(2))
	mustAcquire(t, a, "first")
	mustAcquire(t, b, "second")
	ok, at, err := a.TryAcquire(ctx, site)
	if ok || err != nil || !at.IsZero() {
		t.Fatalf("third = %v, %v, %v; want a refusal until a release (zero time)", ok, at, err)
	}
	b.Release(ctx, site, politeness.Feedback{Status: 200})
	mustAcquire(t, a, "after a release")
}

func TestCrawlDelayAndExclusion(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	p := e.pacer(redispacer.WithFloor(time.Second), redispacer.WithMaxCrawlDelay(30*time.Second))
	other := e.pacer(redispacer.WithFloor(time.Second), redispacer.WithMaxCrawlDelay(30*time.Second))
	if err := p.SetCrawlDelay(ctx, site, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	mustAcquire(t, other, "first")
	other.Release(ctx, site, politeness.Feedback{Status: 200})
	mustWait(t, other, "Crawl-delay 20 s, set by the other process", 19*time.Second, 20*time.Second)

	err := p.SetCrawlDelay(ctx, site, time.Minute)
	var tooLong *politeness.DelayTooLongError
	if !errors.As(err, &tooLong) || tooLong.Delay != time.Minute || tooLong.Cap != 30*time.Second || tooLong.Authority != site {
		t.Fatalf("SetCrawlDelay over the cap: %v; want a DelayTooLongError", err)
	}
	if _, _, err := other.TryAcquire(ctx, site); !errors.As(err, &tooLong) {
		t.Fatalf("TryAcquire of an excluded authority: %v; want DelayTooLongError", err)
	}
	if !other.ReadyAt(site).IsZero() {
		t.Errorf("ReadyAt of an excluded authority = %v; want ready at once", other.ReadyAt(site))
	}
	if st, _ := other.State(ctx, site); !st.Excluded || st.Interval != time.Second {
		t.Errorf("State = %+v; want excluded with the floor as interval", st)
	}
	if err := p.SetCrawlDelay(ctx, site, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	e.clk.advance(2100 * time.Millisecond)
	mustAcquire(t, other, "after the exclusion was lifted")
	if err := p.SetCrawlDelay(ctx, site, -time.Second); err == nil {
		t.Error("a negative Crawl-delay was accepted")
	}
}

func TestRetryAfterAndBackoff(t *testing.T) {
	e := newEnv(t)
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(b)
	}), nil))
	p := e.pacer(redispacer.WithFloor(0), redispacer.WithBackoff(time.Second, 4*time.Second),
		redispacer.WithMaxPause(time.Minute), redispacer.WithLogger(log))
	ctx := context.Background()

	mustAcquire(t, p, "before the 429")
	p.Release(context.Background(), site, politeness.Feedback{Status: 429, RetryAfter: "120"})
	e.clk.advance(time.Second)
	// Cut to the one-minute cap, and logged.
	mustWait(t, p, "after a 429 asking for 120 s", 58*time.Second, 59*time.Second)
	mu.Lock()
	if !strings.Contains(logs.String(), "pause cap") {
		t.Errorf("a capped Retry-After was not logged: %q", logs.String())
	}
	mu.Unlock()
	e.clk.advance(time.Minute)

	date := time.Now().Add(e.clk.offset()).Add(30 * time.Second).UTC().Format(http.TimeFormat)
	mustAcquire(t, p, "after the pause")
	p.Release(context.Background(), site, politeness.Feedback{Status: 503, RetryAfter: date})
	mustWait(t, p, "after a 503 with an HTTP-date", 28*time.Second, 31*time.Second)
	e.clk.advance(31 * time.Second)

	// Failures back off 1 s, 2 s, 4 s, 4 s; a neutral release changes
	// nothing; a success resets.
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		mustAcquire(t, p, fmt.Sprintf("failure %d", i+1))
		fb := politeness.Feedback{Status: 500}
		if i == 2 {
			fb = politeness.Feedback{Err: errors.New("connection reset")}
		}
		p.Release(context.Background(), site, fb)
		st, err := p.State(ctx, site)
		if err != nil {
			t.Fatal(err)
		}
		if st.Failures != i+1 || st.Backoff != want {
			t.Errorf("after failure %d: failures %d, backoff %v; want %d, %v", i+1, st.Failures, st.Backoff, i+1, want)
		}
		e.clk.advance(want + 10*time.Millisecond)
	}
	mustAcquire(t, p, "neutral")
	p.Release(context.Background(), site, politeness.Feedback{Err: context.Canceled})
	if st, _ := p.State(ctx, site); st.Failures != 4 {
		t.Errorf("a cancelled request changed the failures to %d", st.Failures)
	}
	mustAcquire(t, p, "success")
	p.Release(context.Background(), site, politeness.Feedback{Status: 404})
	if st, _ := p.State(ctx, site); st.Failures != 0 || st.Backoff != 0 || st.InFlight != 0 {
		t.Errorf("after a success: %+v; want the backoff reset", st)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// A process that dies mid-request does not keep its slot: it frees itself
// after the slot timeout. While the process lives, renewal keeps it.
func TestSlotOfADeadProcessExpires(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	alive, other := e.pacer(redispacer.WithFloor(0)), e.pacer(redispacer.WithFloor(0))
	mustAcquire(t, alive, "alive")
	for i := 0; i < 4; i++ {
		e.clk.advance(2 * redispacer.DefaultSlotTimeout / 3)
		if err := alive.Renew(context.Background()); err != nil {
			t.Fatal(err)
		}
		if ok, _, _ := other.TryAcquire(ctx, site); ok {
			t.Fatal("a renewed slot expired while its process lived")
		}
	}
	alive.Release(ctx, site, politeness.Feedback{Status: 200})

	dead := e.pacer(redispacer.WithFloor(0))
	mustAcquire(t, dead, "the doomed process")
	dead.Close() // stops renewing: the process is gone
	if ok, _, _ := other.TryAcquire(ctx, site); ok {
		t.Fatal("the slot was free before its timeout")
	}
	e.clk.advance(redispacer.DefaultSlotTimeout + time.Second)
	mustAcquire(t, other, "after the dead process's slot expired")
}

// The Pacer renews its slots by itself, in real time: a slot of 1.5 s held
// for 2.5 s stays taken.
func TestSlotRenewedInTheBackground(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	opts := []redispacer.Option{redispacer.WithFloor(0), redispacer.WithSlotTimeout(1500 * time.Millisecond)}
	alive, other := e.pacer(opts...), e.pacer(opts...)
	mustAcquire(t, alive, "alive")
	time.Sleep(2500 * time.Millisecond)
	if ok, _, _ := other.TryAcquire(ctx, site); ok {
		t.Fatal("a renewed slot expired while its process lived")
	}
	if alive.Held() != 1 {
		t.Errorf("Held = %d; want 1", alive.Held())
	}
	alive.Release(ctx, site, politeness.Feedback{Status: 200})
	mustAcquire(t, other, "after the release")
}

func TestNewRefusesNonsense(t *testing.T) {
	e := newEnv(t)
	for _, o := range []redispacer.Option{
		redispacer.WithFloor(-1), redispacer.WithConcurrency(0), redispacer.WithMaxCrawlDelay(-1),
		redispacer.WithBackoff(2, 1), redispacer.WithBackoff(0, 1), redispacer.WithMaxPause(-1),
	} {
		if _, err := redispacer.New(e.store(), o); err == nil {
			t.Error("New accepted a nonsensical setting")
		}
	}
	if _, err := redispacer.New(nil); err == nil {
		t.Error("New accepted a nil store")
	}
	if _, err := redispacer.New(e.store(), redispacer.WithPacing(politeness.WithFloor(-1))); err == nil {
		t.Error("New accepted a negative floor through WithPacing")
	}
	clk := &manualClock{now: time.Now()}
	if _, err := redispacer.New(e.store(), redispacer.WithPacing(politeness.WithClock(clk))); err == nil {
		t.Error("New accepted politeness.WithClock; the fleet paces on Redis's clock")
	}
	if _, err := redispacer.New(e.store(), redispacer.WithPacing(politeness.WithAutoThrottle(politeness.AutoThrottle{}))); err == nil {
		t.Error("New accepted politeness.WithAutoThrottle, which the fleet pacer does not implement")
	}
}

// WithPacing takes politeness's options, applied in order with the
// fleet's own: the last floor given is the one used.
func TestWithPacing(t *testing.T) {
	e := newEnv(t)
	p := e.pacer(redispacer.WithFloor(time.Second), redispacer.WithPacing(politeness.WithFloor(4*time.Second), politeness.WithConcurrency(2)))
	st, err := p.State(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	if st.Interval != 4*time.Second {
		t.Errorf("Interval = %v; want the floor WithPacing gave, 4s", st.Interval)
	}
	mustAcquire(t, p, "first")
	mustWait(t, p, "in flight", 3*time.Second, 4*time.Second)
}

// With Redis down, TryAcquire books nothing and says Redis is unavailable;
// Wait gives up with the context.
func TestRedisDown(t *testing.T) {
	e := newEnv(t)
	p, err := redispacer.New(e.store(redisstore.WithRetryFor(100*time.Millisecond), redisstore.WithLogger(slog.New(slog.DiscardHandler))),
		redispacer.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.srv.Stop()
	if ok, _, err := p.TryAcquire(context.Background(), site); ok || !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("TryAcquire with Redis down = %v, %v; want ErrUnavailable", ok, err)
	}
	p.Release(context.Background(), site, politeness.Feedback{Status: 200}) // logs, does not block for long or panic
	if !p.ReadyAt(site).IsZero() {
		t.Error("ReadyAt with Redis down is not 'ready now'")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.Wait(ctx, site); err == nil {
		t.Error("Wait with Redis down succeeded")
	}
}

// With Redis down, a TryAcquire or SetCrawlDelay gives up when its
// context ends, with the context's error, instead of retrying for the
// store's budget: a cancelled crawl stops waiting for Redis.
func TestRedisDownEndsWithTheContext(t *testing.T) {
	e := newEnv(t)
	quiet := slog.New(slog.DiscardHandler)
	p, err := redispacer.New(e.store(redisstore.WithRetryFor(time.Minute), redisstore.WithLogger(quiet)), redispacer.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.srv.Stop()
	// A deadline well under the retry budget: only the context can end
	// these calls before the budget does.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ok, _, err := p.TryAcquire(ctx, site)
	if ok || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("TryAcquire with Redis down and its context ended = %v, %v; want the context's error", ok, err)
	}
	if err := p.SetCrawlDelay(ctx, site, time.Second); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("SetCrawlDelay with Redis down and its context ended = %v; want the context's error", err)
	}
}

// A Release on a context already cancelled still frees the slot: a
// request ended by a stopping crawl does not hold its authority for the
// slot timeout in every process.
func TestReleaseAfterCancel(t *testing.T) {
	e := newEnv(t)
	p := e.pacer(redispacer.WithFloor(0), redispacer.WithConcurrency(1))
	ctx, cancel := context.WithCancel(context.Background())
	if ok, _, err := p.TryAcquire(ctx, site); !ok || err != nil {
		t.Fatalf("TryAcquire = %v, %v; want ok", ok, err)
	}
	cancel()
	p.Release(ctx, site, politeness.Feedback{Err: context.Canceled})
	st, err := p.State(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlight != 0 {
		t.Errorf("after a Release on a cancelled context, %d requests in flight; want 0", st.InFlight)
	}
	if ok, _, err := p.TryAcquire(context.Background(), site); !ok || err != nil {
		t.Errorf("TryAcquire after the Release = %v, %v; want ok", ok, err)
	}
}

package redisfrontier_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/frontiertest"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
)

// failsafe bounds every wait that should end.
const failsafe = 20 * time.Second

// clock is a shared time offset: the tests' way to move a crawl's clock
// forward without sleeping.
type clock struct{ off atomic.Int64 }

func (c *clock) offset() time.Duration   { return time.Duration(c.off.Load()) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

func push(t *testing.T, f frontier.Frontier, urls ...string) {
	t.Helper()
	for _, u := range urls {
		res, err := f.Push(context.Background(), &frontier.Request{URL: u})
		if err != nil || res != frontier.Added {
			t.Fatalf("Push(%s) = %v, %v; want added", u, res, err)
		}
	}
}

func next(t *testing.T, f frontier.Frontier) *frontier.Request {
	t.Helper()
	return frontiertest.Next(t, f)
}

func nextErr(f frontier.Frontier, d time.Duration) (*frontier.Request, error) {
	return frontiertest.NextWithin(f, d)
}

func mustBlock(t *testing.T, f frontier.Frontier) {
	t.Helper()
	frontiertest.MustBlock(t, f, 100*time.Millisecond)
}

func counts(t *testing.T, f *redisfrontier.Frontier) redisfrontier.Counts {
	t.Helper()
	c, err := f.Counts(context.Background())
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	return c
}

// Two frontiers on one crawl are one queue: what one pushes the other
// hands out, one seen set, one count.
func TestTwoClientsShareOneCrawl(t *testing.T) {
	srv, _ := startRedis(t)
	prefix := newPrefix(t)
	a := newFrontier(t, newStore(t, srv.Client(t), prefix))
	b := newFrontier(t, newStore(t, srv.Client(t), prefix))
	push(t, a, "http://x.example/1", "http://y.example/1")
	if res, _ := b.Push(context.Background(), &frontier.Request{URL: "HTTP://X.example:80/1"}); res != frontier.Duplicate {
		t.Errorf("Push of a URL the other client pushed = %v; want duplicate", res)
	}
	r1, r2 := next(t, b), next(t, b)
	if r1.URL == r2.URL {
		t.Fatalf("handed out %s twice", r1.URL)
	}
	// The lease belongs to b: a cannot end it.
	if err := a.Done(context.Background(), r1); !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("Done from the other client: %v; want ErrNotLeased", err)
	}
	if st := a.Stats(); st.Leased != 2 || st.Queued != 0 || st.Seen != 2 || st.Duplicates != 1 {
		t.Errorf("Stats from the other client = %+v", st)
	}
	for _, r := range []*frontier.Request{r1, r2} {
		if err := b.Done(context.Background(), r); err != nil {
			t.Fatalf("Done: %v", err)
		}
	}
	if _, err := nextErr(a, failsafe); !errors.Is(err, frontier.ErrExhausted) {
		t.Errorf("Next after every Done: %v; want ErrExhausted", err)
	}
}

// A blocked Next is woken by another process's Push and by another
// process's last Done, through the wake-up channel: the poll interval is
// an hour, so nothing else could wake it within the test's deadline.
func TestWakeUpAcrossClients(t *testing.T) {
	srv, _ := startRedis(t)
	prefix := newPrefix(t)
	slow := redisfrontier.WithPollInterval(time.Hour)
	a := newFrontier(t, newStore(t, srv.Client(t), prefix), slow)
	b := newFrontier(t, newStore(t, srv.Client(t), prefix), slow)
	push(t, a, "http://x.example/seed")
	seed := next(t, a) // keeps the crawl from being exhausted

	got := make(chan *frontier.Request, 1)
	errc := make(chan error, 1)
	go func() {
		r, err := nextErr(b, failsafe)
		got <- r
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond) // b is blocked (or about to be)
	push(t, a, "http://y.example/1")
	if r, err := <-got, <-errc; err != nil || r.URL != "http://y.example/1" {
		t.Fatalf("b's Next = %v, %v; want y.example/1", r, err)
	} else if err := b.Done(context.Background(), r); err != nil {
		t.Fatal(err)
	}

	go func() {
		_, err := nextErr(b, failsafe)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := a.Done(context.Background(), seed); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, frontier.ErrExhausted) {
		t.Fatalf("b's Next after a's last Done: %v; want ErrExhausted", err)
	}
}

// A process that dies holding leases: after the lease timeout its requests
// go back to the head of their queues, for the other processes, and are
// counted as reclaimed. The dead process's late Done is refused.
func TestExpiredLeaseIsReclaimed(t *testing.T) {
	srv, _ := startRedis(t)
	prefix := newPrefix(t)
	var clk clock
	opt := redisstore.WithTimeOffset(clk.offset)
	dead := newFrontier(t, newStore(t, srv.Client(t), prefix, opt))
	live := newFrontier(t, newStore(t, srv.Client(t), prefix, opt), redisfrontier.WithPollInterval(20*time.Millisecond))
	push(t, dead, "http://x.example/1", "http://x.example/2", "http://y.example/1")
	r := next(t, dead)
	if r.URL != "http://x.example/1" {
		t.Fatalf("Next = %s", r.URL)
	}
	dead.Close() // stops renewing: as good as dead for the crawl

	// Within the lease, x.example's lease is taken: only y is handed out.
	if r := next(t, live); r.URL != "http://y.example/1" {
		t.Fatalf("Next = %s; want y.example/1 while x is leased", r.URL)
	} else if err := live.Done(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	mustBlock(t, live)

	clk.advance(redisfrontier.DefaultLeaseTimeout + time.Second)
	back := next(t, live)
	if back.URL != r.URL || back.Seq != r.Seq {
		t.Fatalf("after the lease timeout Next = %s (seq %d); want the reclaimed %s (seq %d) first", back.URL, back.Seq, r.URL, r.Seq)
	}
	if c := counts(t, live); c.Reclaimed != 1 || c.Leased != 1 || c.Queued != 1 {
		t.Errorf("Counts = %+v; want 1 reclaimed, 1 leased, 1 queued", c)
	}
	if err := live.Done(context.Background(), back); err != nil {
		t.Fatal(err)
	}
}

// While its holder lives, a lease is renewed and outlasts its timeout; once
// the holder is cut off long enough for another process to reclaim it,
// renewal finds it lost and Done says so.
func TestLeaseRenewalAndLoss(t *testing.T) {
	srv, _ := startRedis(t)
	prefix := newPrefix(t)
	var clk clock
	opt := redisstore.WithTimeOffset(clk.offset)
	holder := newFrontier(t, newStore(t, srv.Client(t), prefix, opt))
	other := newFrontier(t, newStore(t, srv.Client(t), prefix, opt))
	push(t, holder, "http://x.example/1")
	r := next(t, holder)
	// Four times two thirds of the lease timeout, renewed each time.
	for i := 0; i < 4; i++ {
		clk.advance(2 * redisfrontier.DefaultLeaseTimeout / 3)
		if err := holder.Renew(context.Background()); err != nil {
			t.Fatalf("Renew: %v", err)
		}
		mustBlock(t, other)
	}
	if err := holder.Done(context.Background(), r); err != nil {
		t.Fatalf("Done after renewals: %v", err)
	}
	if c := counts(t, other); c.Reclaimed != 0 {
		t.Errorf("Reclaimed = %d; want 0", c.Reclaimed)
	}

	// Now the holder is cut off: the other process sees the lease
	// expire, reclaims it, and the holder's next renewal finds it lost.
	push(t, holder, "http://x.example/2")
	r = next(t, holder)
	clk.advance(redisfrontier.DefaultLeaseTimeout + time.Second)
	again := next(t, other)
	if again.Seq != r.Seq {
		t.Fatalf("reclaimed %s; want %s", again.URL, r.URL)
	}
	if err := holder.Renew(context.Background()); err != nil {
		t.Fatalf("Renew: %v", err)
	}
	if err := holder.Done(context.Background(), r); !errors.Is(err, redisfrontier.ErrLeaseLost) || !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("Done of a lost lease: %v; want ErrLeaseLost wrapping ErrNotLeased", err)
	}
	if err := other.Done(context.Background(), again); err != nil {
		t.Errorf("Done by the new holder: %v", err)
	}
}

// The Frontier renews its leases by itself, in real time: a lease of 1.5 s
// held for 2.5 s is not reclaimed.
func TestLeaseRenewedInTheBackground(t *testing.T) {
	srv, _ := startRedis(t)
	prefix := newPrefix(t)
	ttl := redisfrontier.WithLeaseTimeout(1500 * time.Millisecond)
	holder := newFrontier(t, newStore(t, srv.Client(t), prefix), ttl)
	other := newFrontier(t, newStore(t, srv.Client(t), prefix), ttl, redisfrontier.WithPollInterval(50*time.Millisecond))
	push(t, holder, "http://x.example/1")
	r := next(t, holder)
	if got, err := nextErr(other, 2500*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("other's Next = %v, %v while the holder renews its lease; want it to block", got, err)
	}
	if err := holder.Done(context.Background(), r); err != nil {
		t.Fatalf("Done: %v", err)
	}
}

// Retry holds and pauses are kept as waits on Redis time: a ten-minute hold
// ends when the crawl's clock says so.
func TestRetryHoldOnTheStoreClock(t *testing.T) {
	_, rdb := startRedis(t)
	var clk clock
	f := newFrontier(t, newStore(t, rdb, newPrefix(t), redisstore.WithTimeOffset(clk.offset)),
		redisfrontier.WithPollInterval(20*time.Millisecond))
	push(t, f, "http://x.example/1")
	r := next(t, f)
	if err := f.Retry(context.Background(), r, time.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	mustBlock(t, f)
	if c := counts(t, f); c.Waiting != 1 || c.Ready != 0 {
		t.Errorf("Counts = %+v; want the authority waiting", c)
	}
	clk.advance(10*time.Minute + time.Second)
	if r2 := next(t, f); r2.Seq != r.Seq {
		t.Errorf("Next = %s; want the retried request", r2.URL)
	}
}

// storedGate is a StoredGate whose ready times the test writes to Redis.
type storedGate struct {
	s     *redisstore.Store
	asked atomic.Int64
}

func (g *storedGate) ReadyAt(string) time.Time {
	g.asked.Add(1)
	return time.Time{}
}
func (g *storedGate) Store() *redisstore.Store { return g.s }
func (g *storedGate) ReadyKeyPrefix() string   { return g.s.Key("testgate:") }

// A StoredGate is read inside Next's script, never asked in Go, and an
// authority it holds back waits without holding up the others.
func TestStoredGate(t *testing.T) {
	_, rdb := startRedis(t)
	var clk clock
	s := newStore(t, rdb, newPrefix(t), redisstore.WithTimeOffset(clk.offset))
	g := &storedGate{s: s}
	f := newFrontier(t, s, redisfrontier.WithFrontierOptions(frontier.WithGate(g)),
		redisfrontier.WithPollInterval(20*time.Millisecond))
	now, err := s.Now(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Hour).UnixMicro()
	if err := rdb.HSet(context.Background(), g.ReadyKeyPrefix()+"http://slow.example", "ready", later).Err(); err != nil {
		t.Fatal(err)
	}
	push(t, f, "http://slow.example/1", "http://fast.example/1", "http://fast.example/2")
	for i := 0; i < 2; i++ {
		r := next(t, f)
		if r.URL == "http://slow.example/1" {
			t.Fatalf("Next handed out the slow authority an hour early")
		}
		f.Done(context.Background(), r)
	}
	mustBlock(t, f)
	clk.advance(time.Hour + time.Second)
	if r := next(t, f); r.URL != "http://slow.example/1" {
		t.Errorf("Next = %s after the gate's time; want slow.example/1", r.URL)
	}
	if n := g.asked.Load(); n != 0 {
		t.Errorf("the stored gate was asked in Go %d times; want 0", n)
	}
}

// The crawl's Order is fixed by its first process.
func TestOrderIsTheCrawls(t *testing.T) {
	_, rdb := startRedis(t)
	prefix := newPrefix(t)
	newFrontier(t, newStore(t, rdb, prefix))
	_, err := redisfrontier.NewFrontier(context.Background(), newStore(t, rdb, prefix),
		redisfrontier.WithFrontierOptions(frontier.WithOrder(frontier.DepthFirst)))
	if err == nil {
		t.Fatal("NewFrontier with another Order succeeded")
	}
	f := newFrontier(t, newStore(t, rdb, prefix), redisfrontier.WithFrontierOptions(frontier.WithOrder(frontier.BreadthFirst)))
	f.Close()
}

// Many workers of one process blocked in Next, woken as work arrives: every
// request is handed out once, and no worker is left behind.
func TestManyWaitersOneProcess(t *testing.T) {
	_, rdb := startRedis(t)
	f := newFrontier(t, newStore(t, rdb, newPrefix(t)), redisfrontier.WithPollInterval(time.Hour),
		redisfrontier.WithFrontierOptions(frontier.WithLeasesPerAuthority(4)))
	push(t, f, "http://seed.example/")
	seed := next(t, f)
	const workers, urls = 16, 400
	var mu sync.Mutex
	seen := make(map[string]int)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r, err := nextErr(f, failsafe)
				if errors.Is(err, frontier.ErrExhausted) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				seen[r.URL]++
				mu.Unlock()
				if err := f.Done(context.Background(), r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < urls; i++ {
		push(t, f, "http://h"+string(rune('a'+i%7))+".example/"+time.Duration(i).String())
	}
	if err := f.Done(context.Background(), seed); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != urls {
		t.Errorf("%d URLs handed out; want %d", len(seen), urls)
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s handed out %d times", u, n)
		}
	}
}

func TestSizes(t *testing.T) {
	_, rdb := startRedis(t)
	f := newFrontier(t, newStore(t, rdb, newPrefix(t)))
	ctx := context.Background()
	if q, l, err := f.Sizes(ctx); q != 0 || l != 0 || err != nil {
		t.Errorf("Sizes of a new crawl = %d, %d, %v", q, l, err)
	}
	push(t, f, "http://a.example/1", "http://a.example/2", "http://b.example/1")
	next(t, f)
	if q, l, err := f.Sizes(ctx); q != 2 || l != 1 || err != nil {
		t.Errorf("Sizes = %d, %d, %v; want 2 queued, 1 leased", q, l, err)
	}
}

// Blocked Next calls wait in the process, not in a loop on Redis: sixteen
// workers idle for a second with a 100 ms poll interval make a few dozen
// script calls, not the thousands a busy loop would.
func TestIdleNextDoesNotHammerRedis(t *testing.T) {
	_, rdb := startRedis(t)
	f := newFrontier(t, newStore(t, rdb, newPrefix(t)), redisfrontier.WithPollInterval(100*time.Millisecond))
	push(t, f, "http://a.example/1")
	held := next(t, f) // not exhausted, nothing ready
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nextErr(f, 1200*time.Millisecond)
		}()
	}
	time.Sleep(100 * time.Millisecond) // let them block
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "cmdstat_evalsha:calls="); ok {
			calls, _ = strconv.Atoi(v[:strings.IndexByte(v, ',')])
		}
	}
	if calls > 60 {
		t.Errorf("16 idle waiters made %d script calls in a second; want about one per poll interval", calls)
	}
	t.Logf("%d script calls in one idle second", calls)
	wg.Wait()
	f.Done(ctx, held)
}

// Package frontiertest is the conformance suite for implementations of
// heed's [frontier.Frontier]. Every backend (the in-memory default, durable
// and distributed ones) runs it from its own tests, so that a crawl behaves
// the same whichever frontier it uses:
//
//	func TestConformance(t *testing.T) {
//		frontiertest.Run(t, func(t *testing.T, opts ...frontier.Option) frontier.Frontier {
//			return mybackend.New(t.TempDir(), opts...)
//		})
//	}
//
// The suite checks canonicalisation and deduplication on Push, the
// admission function, ordering within and across authorities, readiness
// through a fake [frontier.Gate], leases per authority, Retry to the head
// of the queue with a hold, Drain, Stats, ErrExhausted and ErrClosed with
// concurrent waiters, and a concurrent crawl under the race detector in
// which every URL is handed out until Done exactly once.
//
// Scheduling tests run on the real clock with short waits (tens to a few
// hundred milliseconds). They assert order and "not before" only, never
// "within", so they hold on a slow or busy machine; a backend that must be
// tested on a manual clock adds its own tests. Every blocking call has a
// deadline, so a broken backend fails instead of hanging.
//
// The suite does not test durability (what survives a restart) or the
// backend's own configuration: those tests belong to the backend.
package frontiertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// Factory returns a new, empty frontier configured with opts. It registers
// with t.Cleanup whatever the backend needs removed; the suite closes the
// frontier itself (Close may be called more than once).
type Factory func(t *testing.T, opts ...frontier.Option) frontier.Frontier

// Run runs the conformance suite as subtests of t.
func Run(t *testing.T, newFrontier Factory) {
	s := &suite{newFrontier: newFrontier}
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *suite)
	}{
		{"Push/Canonicalises", testPushCanonicalises},
		{"Push/Duplicate", testPushDuplicate},
		{"Push/InvalidURL", testPushInvalid},
		{"Push/Admit", testPushAdmit},
		{"Push/KeepsEveryField", testPushKeepsFields},
		{"Order/BreadthFirst", testOrderBreadthFirst},
		{"Order/DepthFirst", testOrderDepthFirst},
		{"Order/PriorityAcrossAuthorities", testOrderPriorityAcross},
		{"Order/FairAcrossAuthorities", testOrderFair},
		{"Lease/OnePerAuthority", testLeaseOne},
		{"Lease/SeveralPerAuthority", testLeaseSeveral},
		{"Lease/DoneAndRetryNeedALease", testLeaseErrors},
		{"Retry/ToHead", testRetryToHead},
		{"Retry/Hold", testRetryHold},
		{"Gate/SlowAuthorityDoesNotBlockOthers", testGateSlowAuthority},
		{"Gate/NotBeforeReadyTime", testGateNotBefore},
		{"Gate/ReadyTimeMovesLater", testGateMovesLater},
		{"Gate/AskedByAuthority", testGateAuthorityNames},
		{"Exhausted/Empty", testExhaustedEmpty},
		{"Exhausted/WakesEveryWaiter", testExhaustedWaiters},
		{"Exhausted/NotWhileAPushIsAdmitted", testExhaustedAdmitting},
		{"Close/WakesWaitersAndRefuses", testClose},
		{"Context/CancelsNext", testContextCancel},
		{"Drain", testDrain},
		{"Stats", testStats},
		{"Concurrent/CrawlHandsOutEachURLOnce", testConcurrentCrawl},
		{"Concurrent/PushersDeduplicate", testConcurrentPushers},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, s) })
	}
}

type suite struct {
	newFrontier Factory
}

// failsafe bounds every wait that should end: a correct frontier answers
// long before, a broken one fails the test instead of hanging it.
const failsafe = 20 * time.Second

// blocked is how long a Next that must block is given before the test
// concludes it blocked.
const blocked = 50 * time.Millisecond

func (s *suite) new(t *testing.T, opts ...frontier.Option) frontier.Frontier {
	t.Helper()
	f := s.newFrontier(t, opts...)
	if f == nil {
		t.Fatal("factory returned a nil frontier")
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func push(t *testing.T, f frontier.Frontier, reqs ...*frontier.Request) {
	t.Helper()
	for _, r := range reqs {
		res, err := f.Push(context.Background(), r)
		if err != nil || res != frontier.Added {
			t.Fatalf("Push(%s) = %v, %v; want added", r.URL, res, err)
		}
	}
}

func pushURLs(t *testing.T, f frontier.Frontier, urls ...string) {
	t.Helper()
	for _, u := range urls {
		push(t, f, &frontier.Request{URL: u})
	}
}

// Next calls f.Next with a generous deadline and fails the test on an
// error or a nil request. Backends' own tests use it too.
func Next(t testing.TB, f frontier.Frontier) *frontier.Request {
	t.Helper()
	r, err := NextWithin(f, failsafe)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	if r == nil {
		t.Fatal("Next returned a nil request and no error")
	}
	return r
}

// NextWithin calls f.Next with deadline d.
func NextWithin(f frontier.Frontier, d time.Duration) (*frontier.Request, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return f.Next(ctx)
}

// MustBlock checks that f.Next hands out nothing for d.
func MustBlock(t testing.TB, f frontier.Frontier, d time.Duration) {
	t.Helper()
	r, err := NextWithin(f, d)
	if !errors.Is(err, context.DeadlineExceeded) {
		url := ""
		if r != nil {
			url = r.URL
		}
		t.Fatalf("Next = %q, %v; want it to block until the deadline", url, err)
	}
}

func next(t *testing.T, f frontier.Frontier) *frontier.Request { t.Helper(); return Next(t, f) }

func nextErr(f frontier.Frontier, d time.Duration) (*frontier.Request, error) {
	return NextWithin(f, d)
}

func mustBlock(t *testing.T, f frontier.Frontier) { t.Helper(); MustBlock(t, f, blocked) }

func done(t *testing.T, f frontier.Frontier, r *frontier.Request) {
	t.Helper()
	if err := f.Done(context.Background(), r); err != nil {
		t.Fatalf("Done(%s): %v", r.URL, err)
	}
}

// nextDone hands out n requests, marking each Done, and returns their URLs.
func nextDone(t *testing.T, f frontier.Frontier, n int) []string {
	t.Helper()
	var urls []string
	for i := 0; i < n; i++ {
		r := next(t, f)
		urls = append(urls, r.URL)
		done(t, f, r)
	}
	return urls
}

func authorityOf(t *testing.T, r *frontier.Request) string {
	t.Helper()
	a, err := frontier.Authority(r.URL)
	if err != nil {
		t.Fatalf("Authority(%s): %v", r.URL, err)
	}
	return a
}

// fakeGate is a Gate whose ready times a test sets per authority.
type fakeGate struct {
	mu    sync.Mutex
	at    map[string]func() time.Time
	asked map[string]int
}

func newFakeGate() *fakeGate {
	return &fakeGate{at: make(map[string]func() time.Time), asked: make(map[string]int)}
}

func (g *fakeGate) set(authority string, at time.Time) {
	g.setFunc(authority, func() time.Time { return at })
}

func (g *fakeGate) setFunc(authority string, fn func() time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at[authority] = fn
}

func (g *fakeGate) ReadyAt(authority string) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked[authority]++
	if fn := g.at[authority]; fn != nil {
		return fn()
	}
	return time.Time{}
}

func (g *fakeGate) askedFor() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := make(map[string]int, len(g.asked))
	for k, v := range g.asked {
		m[k] = v
	}
	return m
}

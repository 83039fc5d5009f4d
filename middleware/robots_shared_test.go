package middleware

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// memStore is a RobotsStore in memory, shared by the "processes" of a
// test; each process has its own owner name. down makes every call fail.
type memStore struct {
	mu     sync.Mutex
	recs   map[string]*RobotsRecord
	locks  map[string]string
	down   error
	onLock func() // runs inside TryLockRobots, before the lock is taken
}

type storeView struct {
	*memStore
	owner string
}

func newMemStore() *memStore {
	return &memStore{recs: map[string]*RobotsRecord{}, locks: map[string]string{}}
}

func (s *memStore) as(owner string) storeView { return storeView{s, owner} }

func (v storeView) LoadRobots(_ context.Context, a string) (*RobotsRecord, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.down != nil {
		return nil, v.down
	}
	if r := v.recs[a]; r != nil {
		cp := *r
		return &cp, nil
	}
	return nil, nil
}

func (v storeView) TryLockRobots(_ context.Context, a string, _ time.Duration) (bool, error) {
	if v.onLock != nil {
		v.onLock()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.down != nil {
		return false, v.down
	}
	if o, ok := v.locks[a]; ok && o != v.owner {
		return false, nil
	}
	v.locks[a] = v.owner
	return true, nil
}

func (v storeView) StoreRobots(_ context.Context, rec *RobotsRecord) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.down != nil {
		return v.down
	}
	if cur := v.recs[rec.Authority]; cur == nil || !cur.FetchedAt.After(rec.FetchedAt) {
		cp := *rec
		v.recs[rec.Authority] = &cp
	}
	if v.locks[rec.Authority] == v.owner {
		delete(v.locks, rec.Authority)
	}
	return nil
}

func (v storeView) UnlockRobots(_ context.Context, a string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.locks[a] == v.owner {
		delete(v.locks, a)
	}
	return nil
}

func (s *memStore) locked(a string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.locks[a]
	return ok
}

// process is one crawl process's robots stage over a shared store.
type process struct {
	rs     *Robots
	loaded []*RobotsEntry
	got    []*RobotsEntry
}

func newProcess(web Fetcher, st storeView, clk *fakeClock) *process {
	p := &process{}
	p.rs = NewRobots(web, RobotsPolicy{
		Agent: "HeedBot", Now: clk.Now, Shared: st,
		OnLoaded:  func(e *RobotsEntry) { p.loaded = append(p.loaded, e) },
		OnFetched: func(e *RobotsEntry) { p.got = append(p.got, e) },
	})
	return p
}

func (p *process) admit(u string) error {
	_, err := p.rs.Stage()(okFetcher()).Fetch(context.Background(), page(u))
	return err
}

// Two processes, one fetch: the second decides by the first one's record,
// with the same evidence, and hears of it through OnLoaded.
func TestSharedRobotsFetchedOnce(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 200, body: heedRobots}}}}
	clk, st := newFakeClock(), newMemStore()
	a, b := newProcess(web, st.as("a"), clk), newProcess(web, st.as("b"), clk)
	var ra, rb *skiplog.Record
	if err := a.admit("http://a.test/private/x"); !errors.As(err, &ra) {
		t.Fatalf("a: %v; want a robots record", err)
	}
	clk.Advance(time.Minute)
	if err := b.admit("http://a.test/private/x"); !errors.As(err, &rb) {
		t.Fatalf("b: %v; want a robots record", err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times by two processes; want 1", n)
	}
	if ra.Robots.Line != rb.Robots.Line || ra.Robots.Rule != rb.Robots.Rule || !ra.Robots.FetchedAt.Equal(rb.Robots.FetchedAt) {
		t.Errorf("evidence differs: %+v vs %+v", ra.Robots, rb.Robots)
	}
	if len(a.got) != 1 || len(b.got) != 0 || len(b.loaded) != 1 || b.loaded[0].CrawlDelay() != 2*time.Second {
		t.Errorf("a fetched %d, b fetched %d and loaded %d", len(a.got), len(b.got), len(b.loaded))
	}
	if st.locked("http://a.test") {
		t.Error("the lock was not released")
	}
	// Past the max age, the next process to need it fetches it again.
	clk.Advance(24 * time.Hour)
	if err := b.admit("http://a.test/public"); err != nil {
		t.Fatal(err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 2 || len(b.got) != 1 {
		t.Errorf("after the max age: %d fetches, b fetched %d; want 2 and 1", n, len(b.got))
	}
}

// While another process holds the lock, a process that knows nothing of
// the authority defers its requests; once the record is stored, it reads
// it instead of fetching.
func TestSharedRobotsWaitsForTheLockHolder(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 200, body: heedRobots}}}}
	clk, st := newFakeClock(), newMemStore()
	other := st.as("other")
	if ok, _ := other.TryLockRobots(context.Background(), "http://a.test", time.Minute); !ok {
		t.Fatal("lock")
	}
	b := newProcess(web, st.as("b"), clk)
	var de *DeferError
	if err := b.admit("http://a.test/public"); !errors.As(err, &de) || de.Reason != "robots-pending" || !de.Until.After(clk.Now()) {
		t.Fatalf("with the lock held elsewhere: %v; want a robots-pending deferral", err)
	}
	// The lock holder fetches and stores.
	holder := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, Shared: other})
	if _, err := holder.Entry(context.Background(), "http://a.test"); err != nil {
		t.Fatal(err)
	}
	if err := b.admit("http://a.test/public"); err != nil {
		t.Fatalf("after the record was stored: %v", err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 1 || len(b.got) != 0 {
		t.Errorf("%d fetches, b fetched %d; want 1 and 0", n, len(b.got))
	}
}

// A record stored between a process's read and its lock is used, not
// fetched again.
func TestSharedRobotsRereadsAfterLocking(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 200, body: heedRobots}}}}
	clk, st := newFakeClock(), newMemStore()
	first := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, Shared: st.as("first")})
	b := newProcess(web, st.as("b"), clk)
	once := true
	st.onLock = func() {
		if once {
			once = false
			if _, err := first.Entry(context.Background(), "http://a.test"); err != nil {
				t.Error(err)
			}
		}
	}
	if err := b.admit("http://a.test/public"); err != nil {
		t.Fatal(err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 1 || len(b.loaded) != 1 {
		t.Errorf("%d fetches, b loaded %d; want 1 and 1", n, len(b.loaded))
	}
	if st.locked("http://a.test") {
		t.Error("b kept the lock")
	}
}

// An unreachable robots.txt has one retry schedule for the crawl: another
// process waits for the stored retry time, and its retry counts the
// failures on from the first process's.
func TestSharedRobotsUnreachableSchedule(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 503}, {status: 503}, {status: 200, body: heedRobots}}}}
	clk, st := newFakeClock(), newMemStore()
	a, b := newProcess(web, st.as("a"), clk), newProcess(web, st.as("b"), clk)
	var de *DeferError
	if err := a.admit("http://a.test/public"); !errors.As(err, &de) || de.Reason != "robots-unreachable" {
		t.Fatalf("a: %v", err)
	}
	if err := b.admit("http://a.test/public"); !errors.As(err, &de) || de.Reason != "robots-unreachable" {
		t.Fatalf("b before the retry time: %v", err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 1 {
		t.Fatalf("%d fetches before the retry time; want 1", n)
	}
	clk.Advance(time.Second)
	if err := b.admit("http://a.test/public"); !errors.As(err, &de) {
		t.Fatalf("b's retry: %v", err)
	}
	if e, _ := b.rs.Cached("http://a.test"); e == nil || e.Failures != 2 || web.count("http://a.test/robots.txt") != 2 {
		t.Fatalf("after b's retry: %+v, %d fetches; want 2 failures in a row, 2 fetches", e, web.count("http://a.test/robots.txt"))
	}
	clk.Advance(2 * time.Second)
	if err := a.admit("http://a.test/public"); err != nil {
		t.Fatalf("a after the recovery: %v", err)
	}
	if len(a.loaded) != 1 || len(a.got) != 2 {
		t.Errorf("a loaded %d entries and fetched %d; want b's failure loaded and its own recovery", len(a.loaded), len(a.got))
	}
}

// With the store unreachable, a process with no entry defers; one whose
// entry may decide goes on with it; a fetch that cannot start releases the
// lock.
func TestSharedRobotsStoreDown(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 200, body: heedRobots}}}}
	clk, st := newFakeClock(), newMemStore()
	a := newProcess(web, st.as("a"), clk)
	if err := a.admit("http://a.test/public"); err != nil {
		t.Fatal(err)
	}
	st.down = errors.New("redis: connection refused")
	clk.Advance(25 * time.Hour) // due again
	if err := a.admit("http://a.test/public"); err != nil {
		t.Errorf("with an entry and the store down: %v; want the entry used", err)
	}
	b := newProcess(web, st.as("b"), clk)
	var de *DeferError
	if err := b.admit("http://a.test/public"); !errors.As(err, &de) || de.Reason != "robots-store-unavailable" {
		t.Errorf("without an entry and the store down: %v; want a deferral", err)
	}
	st.down = nil

	notReady := FetcherFunc(func(context.Context, *frontier.Request) (*Response, error) {
		return nil, &DeferError{Until: clk.Now().Add(time.Second), Reason: "pacing"}
	})
	c := NewRobots(notReady, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, Shared: st.as("c")})
	if _, err := c.Entry(context.Background(), "http://b.test"); !errors.As(err, &de) || de.Reason != "pacing" {
		t.Fatalf("fetch not ready: %v", err)
	}
	if st.locked("http://b.test") {
		t.Error("a fetch that could not start kept the lock")
	}
}

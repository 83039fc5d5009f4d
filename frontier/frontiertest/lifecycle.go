package frontiertest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// waiters starts n goroutines blocked in Next and returns a channel of
// their errors.
func waiters(f frontier.Frontier, n int) <-chan error {
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), failsafe)
			defer cancel()
			r, err := f.Next(ctx)
			if err == nil {
				err = errors.New("Next handed out " + r.URL)
			}
			errs <- err
		}()
	}
	return errs
}

func collect(t *testing.T, errs <-chan error, n int, want error) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := <-errs; !errors.Is(err, want) {
			t.Errorf("waiter %d: %v; want %v", i, err, want)
		}
	}
}

func testExhaustedEmpty(t *testing.T, s *suite) {
	f := s.new(t)
	if _, err := nextErr(f, failsafe); !errors.Is(err, frontier.ErrExhausted) {
		t.Fatalf("Next on an empty frontier: %v; want ErrExhausted", err)
	}
}

func testExhaustedWaiters(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1")
	r := next(t, f)
	errs := waiters(f, 5)
	// Give the waiters time to block; the test holds whether they did or not.
	time.Sleep(blocked)
	done(t, f, r)
	collect(t, errs, 5, frontier.ErrExhausted)
	if _, err := nextErr(f, failsafe); !errors.Is(err, frontier.ErrExhausted) {
		t.Errorf("later Next: %v; want ErrExhausted", err)
	}
	// Not final: new work ends the exhaustion.
	pushURLs(t, f, "http://a.example/2")
	if r := next(t, f); r.URL != "http://a.example/2" {
		t.Errorf("Next after a new Push = %s", r.URL)
	}
}

func testExhaustedAdmitting(t *testing.T, s *suite) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f := s.new(t, frontier.WithAdmit(func(*frontier.Request) error {
		once.Do(func() { close(entered) })
		<-release
		return nil
	}))
	pushed := make(chan error, 1)
	go func() {
		_, err := f.Push(context.Background(), &frontier.Request{URL: "http://a.example/1"})
		pushed <- err
	}()
	<-entered
	got := make(chan error, 1)
	go func() {
		r, err := nextErr(f, failsafe)
		if err == nil && r.URL != "http://a.example/1" {
			err = errors.New("Next handed out " + r.URL)
		}
		got <- err
	}()
	time.Sleep(blocked) // let Next run while the Push is being admitted
	close(release)
	if err := <-got; err != nil {
		t.Errorf("Next during an admission: %v; want the request being pushed", err)
	}
	if err := <-pushed; err != nil {
		t.Errorf("Push: %v", err)
	}
}

func testClose(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1", "http://a.example/2")
	r := next(t, f)
	errs := waiters(f, 5)
	time.Sleep(blocked)
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	collect(t, errs, 5, frontier.ErrClosed)
	ctx := context.Background()
	if _, err := f.Next(ctx); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	if res, err := f.Push(ctx, &frontier.Request{URL: "http://a.example/3"}); !errors.Is(err, frontier.ErrClosed) || res == frontier.Added {
		t.Errorf("Push after Close = %v, %v; want ErrClosed", res, err)
	}
	if err := f.Done(ctx, r); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Done after Close: %v", err)
	}
	if err := f.Retry(ctx, r, time.Time{}); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Retry after Close: %v", err)
	}
	if err := f.Drain(ctx, func(*frontier.Request) {}); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Drain after Close: %v", err)
	}
	f.Stats() // must not panic
	f.Close() // a second Close must not panic
}

func testContextCancel(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1", "http://a.example/2")
	r := next(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(blocked)
		cancel()
	}()
	if _, err := f.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with a cancelled context: %v; want context.Canceled", err)
	}
	if _, err := f.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with an already cancelled context: %v; want context.Canceled", err)
	}
	// The abandoned wait lost nothing.
	done(t, f, r)
	if r := next(t, f); r.URL != "http://a.example/2" {
		t.Errorf("Next = %s; want a.example/2", r.URL)
	}
}

func testDrain(t *testing.T, s *suite) {
	f := s.new(t)
	push(t, f,
		&frontier.Request{URL: "http://a.example/d1", Depth: 1},
		&frontier.Request{URL: "http://a.example/d0"},
		&frontier.Request{URL: "http://a.example/p9", Depth: 3, Priority: 9},
		&frontier.Request{URL: "http://b.example/1"},
		&frontier.Request{URL: "http://b.example/2"},
		&frontier.Request{URL: "http://c.example/1"},
	)
	leased := next(t, f) // a.example/p9
	if leased.URL != "http://a.example/p9" {
		t.Fatalf("Next = %s; want the priority request", leased.URL)
	}
	var got []string
	if err := f.Drain(context.Background(), func(r *frontier.Request) { got = append(got, r.URL) }); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	want := []string{"http://a.example/d0", "http://a.example/d1", "http://b.example/1", "http://b.example/2", "http://c.example/1"}
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if !slices.Equal(sorted, want) {
		t.Fatalf("Drain passed %q; want each of %q once", got, want)
	}
	before := func(x, y string) bool { return slices.Index(got, x) < slices.Index(got, y) }
	if !before("http://a.example/d0", "http://a.example/d1") || !before("http://b.example/1", "http://b.example/2") {
		t.Errorf("Drain order %q is not each authority's queue order", got)
	}
	if st := f.Stats(); st.Queued != 0 || st.Leased != 1 || len(st.ByAuthority) != 0 {
		t.Errorf("Stats after Drain = %+v; want nothing queued, 1 leased", st)
	}
	if res, _ := f.Push(context.Background(), &frontier.Request{URL: "http://b.example/1"}); res != frontier.Duplicate {
		t.Errorf("Push of a drained URL = %v; want duplicate", res)
	}
	mustBlock(t, f) // the lease keeps the crawl going
	done(t, f, leased)
	if _, err := nextErr(f, failsafe); !errors.Is(err, frontier.ErrExhausted) {
		t.Errorf("Next after Drain and Done: %v; want ErrExhausted", err)
	}
	if err := f.Drain(context.Background(), nil); err != nil {
		t.Errorf("Drain of an empty frontier with a nil func: %v", err)
	}
}

func testStats(t *testing.T, s *suite) {
	f := s.new(t, frontier.WithAdmit(func(r *frontier.Request) error {
		if r.URL == "http://c.example/no" {
			return errors.New("no")
		}
		return nil
	}))
	ctx := context.Background()
	if st := f.Stats(); st.Queued != 0 || st.Leased != 0 || st.Seen != 0 || st.Duplicates != 0 || st.Rejected != 0 || len(st.ByAuthority) != 0 {
		t.Errorf("Stats of a new frontier = %+v", st)
	}
	pushURLs(t, f, "http://a.example/1", "http://a.example/2", "http://b.example/1", "https://a.example/1")
	f.Push(ctx, &frontier.Request{URL: "http://a.example/1"})
	f.Push(ctx, &frontier.Request{URL: "http://c.example/no"})
	f.Push(ctx, &frontier.Request{URL: "ftp://c.example/"})
	next(t, f)
	st := f.Stats()
	if st.Queued != 3 || st.Leased != 1 || st.Seen != 5 || st.Duplicates != 1 || st.Rejected != 2 {
		t.Errorf("Stats = %+v; want 3 queued, 1 leased, 5 seen, 1 duplicate, 2 rejected", st)
	}
	total := 0
	for _, n := range st.ByAuthority {
		total += n
	}
	if total != 3 || st.ByAuthority["http://b.example"] != 1 || st.ByAuthority["https://a.example"] != 1 {
		t.Errorf("ByAuthority = %v; want 3 queued over http://a, http://b and https://a", st.ByAuthority)
	}
}

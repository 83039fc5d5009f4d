package middleware

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// blockingWeb answers a robots.txt only when its authority is released,
// or fails when the context ends; it records the order of the fetches.
type blockingWeb struct {
	mu      sync.Mutex
	release map[string]chan struct{}
	order   []string
}

func (w *blockingWeb) gate(url string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := w.release[url]
	if ch == nil {
		ch = make(chan struct{})
		w.release[url] = ch
	}
	return ch
}

func (w *blockingWeb) Fetch(ctx context.Context, req *frontier.Request) (*Response, error) {
	w.mu.Lock()
	w.order = append(w.order, req.URL)
	w.mu.Unlock()
	select {
	case <-w.gate(req.URL):
		return &Response{Request: req, URL: req.URL, Status: 200, Header: http.Header{}, Body: []byte("User-agent: *\nDisallow: /no\n")}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stageCall runs one request through the stage and fails the test if the
// stage holds the caller for more than a second.
func stageCall(t *testing.T, f Fetcher, u string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := f.Fetch(context.Background(), &frontier.Request{URL: u, Seq: 1})
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		t.Fatalf("the robots stage held the caller of %s while robots.txt was fetched", u)
		return nil
	}
}

// TestRobotsPoolNeverHoldsTheCaller: with a pool, a request whose
// robots.txt is not known is deferred at once, however long the fetch
// takes; the fetch runs in the pool, the pool runs at most Fetchers
// fetches, and the request is decided by the file once it is in.
func TestRobotsPoolNeverHoldsTheCaller(t *testing.T) {
	web := &blockingWeb{release: map[string]chan struct{}{}}
	fetched := make(chan string, 4)
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Fetchers: 1, OnFetched: func(e *RobotsEntry) { fetched <- e.Authority }})
	defer rs.Close()
	f := rs.Stage()(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		return &Response{Request: req, Status: 200}, nil
	}))
	for _, u := range []string{"http://a.test/x", "http://b.test/x", "http://a.test/y"} {
		var de *DeferError
		if err := stageCall(t, f, u); !errors.As(err, &de) || de.Reason != "robots-pending" {
			t.Fatalf("%s: err = %v, want a robots-pending deferral", u, err)
		}
	}
	time.Sleep(20 * time.Millisecond)
	web.mu.Lock()
	if len(web.order) != 1 {
		t.Errorf("%d fetches in flight with a pool of 1: %v", len(web.order), web.order)
	}
	web.mu.Unlock()
	close(web.gate("http://a.test/robots.txt"))
	if got := <-fetched; got != "http://a.test" {
		t.Fatalf("fetched %s first, want http://a.test", got)
	}
	if err := stageCall(t, f, "http://a.test/x"); err != nil {
		t.Errorf("after the fetch: %v", err)
	}
	if err := stageCall(t, f, "http://a.test/no"); err == nil {
		t.Error("after the fetch: /no admitted, want disallowed")
	}
	close(web.gate("http://b.test/robots.txt"))
	if got := <-fetched; got != "http://b.test" {
		t.Fatalf("fetched %s second, want http://b.test", got)
	}
}

// TestRobotsPoolFirstFetchesBeforeRetries: a waiting first fetch of an
// authority goes before a waiting retry of an unreachable one.
func TestRobotsPoolFirstFetchesBeforeRetries(t *testing.T) {
	p := newRobotsPool(1)
	var mu sync.Mutex
	var order []string
	block := make(chan struct{})
	task := func(name string, wait bool) func(context.Context) {
		return func(context.Context) {
			if wait {
				<-block
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}
	}
	ctx := context.Background()
	p.submit(ctx, true, task("running", true))
	p.submit(ctx, false, task("retry 1", false))
	p.submit(ctx, true, task("first 1", false))
	p.submit(ctx, false, task("retry 2", false))
	p.submit(ctx, true, task("first 2", false))
	close(block)
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		n := len(order)
		mu.Unlock()
		if n == 5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.close()
	want := []string{"running", "first 1", "first 2", "retry 1", "retry 2"}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
}

// TestRobotsCloseCancelsFetches: Close cancels the fetches in flight,
// waits for them, and nothing they found is installed or reported.
func TestRobotsCloseCancelsFetches(t *testing.T) {
	web := &blockingWeb{release: map[string]chan struct{}{}}
	var reported int
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Fetchers: 4, OnFetched: func(*RobotsEntry) { reported++ }})
	f := rs.Stage()(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		return &Response{Request: req, Status: 200}, nil
	}))
	stageCall(t, f, "http://a.test/x")
	stageCall(t, f, "http://b.test/x")
	closed := make(chan struct{})
	go func() { rs.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not return: the fetches in flight were not cancelled")
	}
	if _, ok := rs.Cached("http://a.test"); ok || reported != 0 {
		t.Errorf("after Close: entry cached %v, %d fetches reported; want none", ok, reported)
	}
	if err := stageCall(t, f, "http://c.test/x"); err == nil {
		t.Error("a request needing a fetch after Close was admitted")
	}
}

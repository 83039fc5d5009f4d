package redisfrontier_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/redis/go-redis/v9"
)

func TestNewStoreRefusesBadPrefixes(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	for _, p := range []string{"", "has space:", "tab\t", "nl\n", strings.Repeat("x", 201)} {
		if _, err := redisfrontier.NewStore(rdb, p); err == nil {
			t.Errorf("NewStore(%q) succeeded", p)
		}
	}
	if _, err := redisfrontier.NewStore(nil, "heed:"); err == nil {
		t.Error("NewStore with a nil client succeeded")
	}
	if _, err := redisfrontier.NewStore(rdb, "heed:", redisfrontier.WithRetryFor(-time.Second)); err == nil {
		t.Error("NewStore with a negative retry budget succeeded")
	}
	s, err := redisfrontier.NewStore(rdb, "heed:crawl:")
	if err != nil {
		t.Fatal(err)
	}
	if s.Key("f:seen") != "heed:crawl:f:seen" || s.Prefix() != "heed:crawl:" {
		t.Errorf("Key = %q, Prefix = %q", s.Key("f:seen"), s.Prefix())
	}
}

// Reset deletes its crawl's keys and no other's, even when the prefix has
// characters that SCAN's pattern treats specially.
func TestResetDeletesOnlyItsCrawl(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	for _, keep := range []string{"other:f:seen", "crawlX:k", "crawl:k"} {
		rdb.Set(ctx, keep, "1", 0)
	}
	s := newStore(t, rdb, "crawl*[?]:")
	f := newFrontier(t, s)
	push(t, f, "http://a.example/1", "http://b.example/1")
	next(t, f)
	f.Close()
	n, err := s.Reset(ctx)
	if err != nil || n == 0 {
		t.Fatalf("Reset = %d, %v", n, err)
	}
	keys, _ := rdb.Keys(ctx, "*").Result()
	if len(keys) != 3 {
		t.Errorf("keys left after Reset: %q; want the 3 of other crawls", keys)
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// With Redis down, calls retry for the budget and then fail with
// ErrUnavailable, having taken nothing over: the pushed request is still
// the caller's, and pushing it again once Redis is back adds it. The outage
// is logged once, and the recovery once.
func TestRedisDownThenBack(t *testing.T) {
	srv, rdb := startRedis(t)
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := newStore(t, rdb, newPrefix(t), redisfrontier.WithLogger(log), redisfrontier.WithRetryFor(300*time.Millisecond))
	f := newFrontier(t, s)
	push(t, f, "http://a.example/1")
	leased := next(t, f)

	srv.Stop()
	req := &frontier.Request{URL: "http://a.example/2", Meta: map[string]string{"k": "v"}}
	start := time.Now()
	res, err := f.Push(context.Background(), req)
	if res != frontier.Rejected || !errors.Is(err, redisfrontier.ErrUnavailable) {
		t.Fatalf("Push with Redis down = %v, %v; want rejected with ErrUnavailable", res, err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("Push gave up after %v; want the 300ms retry budget", waited)
	}
	if err := f.Done(context.Background(), leased); !errors.Is(err, redisfrontier.ErrUnavailable) {
		t.Fatalf("Done with Redis down: %v; want ErrUnavailable", err)
	}
	if _, err := nextErr(f, failsafe); !errors.Is(err, redisfrontier.ErrUnavailable) {
		t.Fatalf("Next with Redis down: %v; want ErrUnavailable", err)
	}
	// A context that ends first ends the retries.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err = f.Push(ctx, &frontier.Request{URL: "http://a.example/3"})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Push with an ending context: %v; want DeadlineExceeded", err)
	}

	srv.Restart(t) // not persistent: the crawl starts empty
	if res, err := f.Push(context.Background(), req); res != frontier.Added || err != nil {
		t.Fatalf("Push of the kept request after the restart = %v, %v", res, err)
	}
	if req.Meta["k"] != "v" {
		t.Errorf("the kept request lost its Meta: %+v", req)
	}
	// The lease was lost with the server's data; Done says so.
	if err := f.Done(context.Background(), leased); !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("Done of a lease the restart lost: %v; want ErrNotLeased", err)
	}
	out := logs.String()
	if n := strings.Count(out, "redis unreachable"); n != 1 {
		t.Errorf("logged the outage %d times; want once:\n%s", n, out)
	}
	if n := strings.Count(out, "redis reachable again"); n != 1 {
		t.Errorf("logged the recovery %d times; want once:\n%s", n, out)
	}
}

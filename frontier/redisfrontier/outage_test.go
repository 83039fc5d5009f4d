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
	"github.com/heedcrawl/heed/redisstore"
)

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
	s := newStore(t, rdb, newPrefix(t), redisstore.WithLogger(log), redisstore.WithRetryFor(300*time.Millisecond))
	f := newFrontier(t, s)
	push(t, f, "http://a.example/1")
	leased := next(t, f)

	srv.Stop()
	req := &frontier.Request{URL: "http://a.example/2", Meta: map[string]string{"k": "v"}}
	start := time.Now()
	res, err := f.Push(context.Background(), req)
	if res != frontier.Rejected || !errors.Is(err, redisstore.ErrUnavailable) {
		t.Fatalf("Push with Redis down = %v, %v; want rejected with ErrUnavailable", res, err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("Push gave up after %v; want the 300ms retry budget", waited)
	}
	if err := f.Done(context.Background(), leased); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Fatalf("Done with Redis down: %v; want ErrUnavailable", err)
	}
	if _, err := nextErr(f, failsafe); !errors.Is(err, redisstore.ErrUnavailable) {
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

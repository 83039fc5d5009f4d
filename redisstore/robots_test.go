package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/redisstore"
)

func TestRobotsCacheRoundTrip(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	c := redisstore.NewRobotsCache(newStore(t, rdb, newPrefix(t)))
	const a = "https://example.com"
	if rec, err := c.LoadRobots(ctx, a); rec != nil || err != nil {
		t.Fatalf("GetRobots of an unknown authority = %v, %v; want nil, nil", rec, err)
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)
	want := &middleware.RobotsRecord{Authority: a,
		URL: a + "/robots.txt", FinalURL: "https://www.example.com/robots.txt", Hops: 1,
		FetchedAt: at, Status: 200, State: "available", Body: []byte("User-agent: *\nDisallow: /private\n\x00\xff"),
	}
	if err := c.StoreRobots(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := c.LoadRobots(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != want.URL || got.FinalURL != want.FinalURL || got.Hops != 1 || !got.FetchedAt.Equal(at) ||
		got.Status != 200 || got.State != "available" || !bytes.Equal(got.Body, want.Body) || got.Truncated != nil || got.Authority != a {
		t.Errorf("GetRobots = %+v; want %+v", got, want)
	}

	// An older record does not replace a newer one; a newer one does.
	older := &middleware.RobotsRecord{Authority: a, URL: a + "/robots.txt", FetchedAt: at.Add(-time.Minute), State: "unreachable", Status: 503}
	if err := c.StoreRobots(ctx, older); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.LoadRobots(ctx, a); got.State != "available" {
		t.Errorf("an older record replaced a newer one: %+v", got)
	}
	newer := &middleware.RobotsRecord{Authority: a, URL: a + "/robots.txt", FetchedAt: at.Add(time.Minute), State: "unreachable",
		Status: 503, Failures: 2, FirstFailure: at, RetryAt: at.Add(time.Hour), Err: "503 Service Unavailable"}
	if err := c.StoreRobots(ctx, newer); err != nil {
		t.Fatal(err)
	}
	got, _ = c.LoadRobots(ctx, a)
	if got.State != "unreachable" || got.Failures != 2 || !got.RetryAt.Equal(at.Add(time.Hour)) || got.Body != nil || got.Err != "503 Service Unavailable" {
		t.Errorf("LoadRobots after a newer store = %+v", got)
	}

	// A body read past the store's limit is kept cut, and says so.
	big := &middleware.RobotsRecord{Authority: a, URL: a, FetchedAt: at.Add(2 * time.Minute), State: "available",
		Body: bytes.Repeat([]byte("#"), redisstore.MaxRobotsBody+10), Limit: redisstore.MaxRobotsBody + 9}
	if err := c.StoreRobots(ctx, big); err != nil {
		t.Fatal(err)
	}
	got, _ = c.LoadRobots(ctx, a)
	if len(got.Body) != redisstore.MaxRobotsBody+1 || got.Truncated == nil || got.Limit != redisstore.MaxRobotsBody || len(big.Body) != redisstore.MaxRobotsBody+10 {
		t.Errorf("stored body of %d bytes (limit %d, truncated %v), caller's now %d", len(got.Body), got.Limit, got.Truncated, len(big.Body))
	}
	// A process parsing as far as the store keeps reads the cut record
	// as the file; one parsing further refuses it and fetches the file.
	if _, err := got.Entry("ExampleBot", redisstore.MaxRobotsBody); err != nil {
		t.Errorf("the cut record at the store's limit: %v", err)
	}
	if _, err := got.Entry("ExampleBot", redisstore.MaxRobotsBody+9); !errors.Is(err, middleware.ErrStaleRecord) {
		t.Errorf("the cut record at a higher limit: %v; want ErrStaleRecord", err)
	}
	if err := c.StoreRobots(ctx, nil); err == nil {
		t.Error("StoreRobots(nil) succeeded")
	}
}

// Of many processes racing for one authority's robots.txt, one fetches; the
// lock passes on when it is released or when its holder dies.
func TestRobotsLock(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	prefix := newPrefix(t)
	const a = "http://example.com"
	var caches []*redisstore.RobotsCache
	for i := 0; i < 8; i++ {
		caches = append(caches, redisstore.NewRobotsCache(newStore(t, rdb, prefix)))
	}
	var winners atomic.Int32
	var wg sync.WaitGroup
	for _, c := range caches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := c.TryLockRobots(ctx, a, time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				winners.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := winners.Load(); n != 1 {
		t.Fatalf("%d processes got the lock; want 1", n)
	}
	var holder *redisstore.RobotsCache
	for _, c := range caches {
		if ok, _ := c.TryLockRobots(ctx, a, time.Minute); ok {
			holder = c // the holder extends its own lock
		}
	}
	if holder == nil {
		t.Fatal("the holder could not extend its lock")
	}
	other := caches[0]
	if other == holder {
		other = caches[1]
	}
	// Only the holder's unlock or put releases it.
	other.UnlockRobots(ctx, a)
	if ok, _ := other.TryLockRobots(ctx, a, time.Minute); ok {
		t.Fatal("another process's unlock released the lock")
	}
	if err := holder.StoreRobots(ctx, &middleware.RobotsRecord{Authority: a, URL: a + "/robots.txt", FetchedAt: time.Now(), State: "unavailable", Status: 404}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := other.TryLockRobots(ctx, a, 50*time.Millisecond); !ok {
		t.Fatal("the lock was not released by PutRobots")
	}
	// other "dies": its lock expires.
	time.Sleep(150 * time.Millisecond)
	if ok, _ := holder.TryLockRobots(ctx, a, time.Minute); !ok {
		t.Fatal("an expired lock was not taken over")
	}
	if _, err := holder.TryLockRobots(ctx, a, 0); err == nil {
		t.Error("TryLockRobots with a zero ttl succeeded")
	}
}

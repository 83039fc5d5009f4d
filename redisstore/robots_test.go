package redisfrontier_test

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier/redisfrontier"
)

func TestRobotsCacheRoundTrip(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	c := redisfrontier.NewRobotsCache(newStore(t, rdb, newPrefix(t)))
	const a = "https://example.com"
	if rec, err := c.GetRobots(ctx, a); rec != nil || err != nil {
		t.Fatalf("GetRobots of an unknown authority = %v, %v; want nil, nil", rec, err)
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)
	want := &redisfrontier.RobotsRecord{
		URL: a + "/robots.txt", FinalURL: "https://www.example.com/robots.txt", Hops: 1,
		FetchedAt: at, Status: 200, State: "available", Body: []byte("User-agent: *\nDisallow: /private\n\x00\xff"),
	}
	if err := c.PutRobots(ctx, a, want); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRobots(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != want.URL || got.FinalURL != want.FinalURL || got.Hops != 1 || !got.FetchedAt.Equal(at) ||
		got.Status != 200 || got.State != "available" || !bytes.Equal(got.Body, want.Body) || got.BodyTruncated {
		t.Errorf("GetRobots = %+v; want %+v", got, want)
	}

	// An older record does not replace a newer one; a newer one does.
	older := &redisfrontier.RobotsRecord{URL: a + "/robots.txt", FetchedAt: at.Add(-time.Minute), State: "unreachable", Status: 503}
	if err := c.PutRobots(ctx, a, older); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.GetRobots(ctx, a); got.State != "available" {
		t.Errorf("an older record replaced a newer one: %+v", got)
	}
	newer := &redisfrontier.RobotsRecord{URL: a + "/robots.txt", FetchedAt: at.Add(time.Minute), State: "unreachable",
		Status: 503, Failures: 2, FirstFailure: at, RetryAt: at.Add(time.Hour), RetryAfter: "120"}
	if err := c.PutRobots(ctx, a, newer); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetRobots(ctx, a)
	if got.State != "unreachable" || got.Failures != 2 || !got.RetryAt.Equal(at.Add(time.Hour)) || got.Body != nil || got.RetryAfter != "120" {
		t.Errorf("GetRobots after a newer Put = %+v", got)
	}

	// An oversized body is kept cut, and says so.
	big := &redisfrontier.RobotsRecord{URL: a, FetchedAt: at.Add(2 * time.Minute), State: "available",
		Body: bytes.Repeat([]byte("#"), redisfrontier.MaxRobotsBody+10)}
	if err := c.PutRobots(ctx, a, big); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetRobots(ctx, a)
	if len(got.Body) != redisfrontier.MaxRobotsBody || !got.BodyTruncated || len(big.Body) != redisfrontier.MaxRobotsBody+10 {
		t.Errorf("stored body of %d bytes (truncated %v), caller's now %d", len(got.Body), got.BodyTruncated, len(big.Body))
	}
	if err := c.PutRobots(ctx, a, nil); err == nil {
		t.Error("PutRobots(nil) succeeded")
	}
}

// Of many processes racing for one authority's robots.txt, one fetches; the
// lock passes on when it is released or when its holder dies.
func TestRobotsLock(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	prefix := newPrefix(t)
	const a = "http://example.com"
	var caches []*redisfrontier.RobotsCache
	for i := 0; i < 8; i++ {
		caches = append(caches, redisfrontier.NewRobotsCache(newStore(t, rdb, prefix)))
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
	var holder *redisfrontier.RobotsCache
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
	if err := holder.PutRobots(ctx, a, &redisfrontier.RobotsRecord{URL: a + "/robots.txt", FetchedAt: time.Now(), State: "unavailable", Status: 404}); err != nil {
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

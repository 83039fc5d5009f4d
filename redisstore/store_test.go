package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

func TestNewStoreRefusesBadPrefixes(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	for _, p := range []string{"", "has space:", "tab\t", "nl\n", strings.Repeat("x", 201)} {
		if _, err := redisstore.NewStore(rdb, p); err == nil {
			t.Errorf("NewStore(%q) succeeded", p)
		}
	}
	if _, err := redisstore.NewStore(nil, "heed:"); err == nil {
		t.Error("NewStore with a nil client succeeded")
	}
	if _, err := redisstore.NewStore(rdb, "heed:", redisstore.WithRetryFor(-time.Second)); err == nil {
		t.Error("NewStore with a negative retry budget succeeded")
	}
	s, err := redisstore.NewStore(rdb, "heed:crawl:")
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
	if err := redisstore.NewCounters(s).Fetched(ctx, "http://a.example", 200, 10); err != nil {
		t.Fatal(err)
	}
	rec := &middleware.RobotsRecord{Authority: "http://a.example", URL: "http://a.example/robots.txt", FetchedAt: time.Now(), State: "unavailable", Status: 404}
	if err := redisstore.NewRobotsCache(s).StoreRobots(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rdb.Set(ctx, s.Key("f:seen"), "1", 0)
	n, err := s.Reset(ctx)
	if err != nil || n == 0 {
		t.Fatalf("Reset = %d, %v", n, err)
	}
	keys, _ := rdb.Keys(ctx, "*").Result()
	if len(keys) != 3 {
		t.Errorf("keys left after Reset: %q; want the 3 of other crawls", keys)
	}
}

package redisfrontier_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier/redistest"
	"github.com/redis/go-redis/v9"
)

var prefixes atomic.Int64

// newPrefix returns a key prefix no other test of this run uses.
func newPrefix(t testing.TB) string {
	return fmt.Sprintf("heedtest:%d:%d:", time.Now().UnixNano()%1e6, prefixes.Add(1))
}

// newStore makes a store with a fresh prefix on srv, reset at the end.
func newStore(t testing.TB, rdb *redis.Client, prefix string, opts ...redisfrontier.StoreOption) *redisfrontier.Store {
	t.Helper()
	s, err := redisfrontier.NewStore(rdb, prefix, opts...)
	if err != nil {
		t.Fatalf("NewStore: %v", err)
	}
	return s
}

func newFrontier(t testing.TB, s *redisfrontier.Store, opts ...redisfrontier.Option) *redisfrontier.Frontier {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := redisfrontier.NewFrontier(ctx, s, opts...)
	if err != nil {
		t.Fatalf("NewFrontier: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func startRedis(t testing.TB, opts ...redistest.Option) (*redistest.Server, *redis.Client) {
	t.Helper()
	srv := redistest.Start(t, opts...)
	return srv, srv.Client(t)
}

var _ = frontier.ErrClosed

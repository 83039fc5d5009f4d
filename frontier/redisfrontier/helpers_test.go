package redisfrontier_test

import (
	"context"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/redis/go-redis/v9"
)

// newPrefix returns a key prefix no other test of this run uses.
func newPrefix(testing.TB) string { return redistest.Prefix() }

// newStore makes a store of rdb under prefix.
func newStore(t testing.TB, rdb *redis.Client, prefix string, opts ...redisstore.StoreOption) *redisstore.Store {
	t.Helper()
	return redistest.Store(t, rdb, prefix, opts...)
}

func newFrontier(t testing.TB, s *redisstore.Store, opts ...redisfrontier.Option) *redisfrontier.Frontier {
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

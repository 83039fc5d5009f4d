package redisstore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/redisstore/redistest"
)

func startRedis(t testing.TB) (*redistest.Server, *redis.Client) {
	t.Helper()
	srv := redistest.Start(t)
	return srv, srv.Client(t)
}

var newPrefix = func(testing.TB) string { return redistest.Prefix() }

var newStore = redistest.Store

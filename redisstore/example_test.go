package redisstore_test

import (
	"context"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/redisstore"
)

// The robots.txt cache: the process that gets the lock fetches, the
// others wait for its record.
func ExampleRobotsCache() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	s, err := redisstore.NewStore(rdb, "heed:example:")
	if err != nil {
		log.Fatal(err)
	}
	cache := redisstore.NewRobotsCache(s)
	const site = "https://example.com"

	rec, err := cache.LoadRobots(ctx, site)
	if err != nil {
		log.Fatal(err)
	}
	if rec != nil && time.Since(rec.FetchedAt) < 24*time.Hour {
		return // fresh enough: use rec.Body, or hand the cache to the robots stage as RobotsPolicy.Shared
	}
	locked, err := cache.TryLockRobots(ctx, site, time.Minute)
	if err != nil || !locked {
		return // another process is fetching it: try again later
	}
	// Fetch https://example.com/robots.txt here, then share the outcome
	// (StoreRobots also releases the lock).
	err = cache.StoreRobots(ctx, &middleware.RobotsRecord{
		Authority: site, URL: site + "/robots.txt", FetchedAt: time.Now(), Status: 200, State: "available",
		Body: []byte("User-agent: *\nDisallow: /private/\n"),
	})
	if err != nil {
		log.Fatal(err)
	}
}

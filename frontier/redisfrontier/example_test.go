package redisfrontier_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// One process of a crawl shared through Redis: every process runs the same
// code with the same prefix, and each takes its share of the work. The
// pacer is the frontier's Gate and paces every process together.
func Example() {
	ctx := context.Background()
	opt, err := redis.ParseURL("redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()

	s, err := redisstore.NewStore(rdb, "heed:example:")
	if err != nil {
		log.Fatal(err)
	}
	pacer, err := redispacer.New(s, redispacer.WithFloor(time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer pacer.Close()
	f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithFrontierOptions(frontier.WithGate(pacer)))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	// Any process may push seeds: a URL pushed twice is a Duplicate.
	if _, err := f.Push(ctx, &frontier.Request{URL: "https://example.com/"}); err != nil {
		log.Fatal(err)
	}
	for {
		req, err := f.Next(ctx)
		if errors.Is(err, frontier.ErrExhausted) {
			break // no process has anything left
		}
		if err != nil {
			log.Fatal(err)
		}
		ok, retryAt, err := pacer.TryAcquire(context.Background(), req.Authority())
		if err != nil || !ok {
			// Not now (or Redis is out of reach): the frontier keeps it.
			f.Retry(ctx, req, retryAt)
			continue
		}
		status := 200 // fetch req.URL here
		pacer.Release(context.Background(), req.Authority(), politeness.Feedback{Status: status})
		f.Done(ctx, req)
	}
}

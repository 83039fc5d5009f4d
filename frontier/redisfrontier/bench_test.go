package redisfrontier_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
)

// benchURL is the i-th URL of a benchmark, over 100 authorities.
func benchURL(round, i int) string {
	return "https://host" + strconv.Itoa(i%100) + ".example/r" + strconv.Itoa(round) + "/" + strconv.Itoa(i)
}

// BenchmarkPushNextDone measures one URL's life, Push then Next then Done,
// in the Redis frontier on a local redis-server and, as the peer to compare
// with, in the in-memory frontier. URLs are pushed in batches of 1000 and
// then taken; an op is one URL.
func BenchmarkPushNextDone(b *testing.B) {
	_, rdb := startRedis(b)
	for _, tc := range []struct {
		name string
		make func(b *testing.B) frontier.Frontier
	}{
		{"memory", func(*testing.B) frontier.Frontier {
			return frontier.NewMemory(frontier.WithLeasesPerAuthority(1000))
		}},
		{"redis", func(b *testing.B) frontier.Frontier {
			return newFrontier(b, newStore(b, rdb, newPrefix(b)),
				redisfrontier.WithFrontierOptions(frontier.WithLeasesPerAuthority(1000)))
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := tc.make(b)
			defer f.Close()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for round, left := 0, b.N; left > 0; round++ {
				n := min(left, 1000)
				left -= n
				for i := 0; i < n; i++ {
					if res, err := f.Push(ctx, &frontier.Request{URL: benchURL(round, i)}); res != frontier.Added {
						b.Fatalf("Push: %v %v", res, err)
					}
				}
				for i := 0; i < n; i++ {
					r, err := f.Next(ctx)
					if err != nil {
						b.Fatalf("Next: %v", err)
					}
					if err := f.Done(ctx, r); err != nil {
						b.Fatalf("Done: %v", err)
					}
				}
			}
		})
	}
}

// BenchmarkClients measures the same life of a URL with 1, 2 and 4
// frontiers (each its own connection pool, as separate processes would
// have) working on one crawl at once, each pushing and taking its share.
// An op is one URL, whichever client handled it; compare the ns/op of the
// client counts with each other.
func BenchmarkClients(b *testing.B) {
	srv, _ := startRedis(b)
	for _, clients := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			prefix := newPrefix(b)
			var fs []*redisfrontier.Frontier
			for i := 0; i < clients; i++ {
				fs = append(fs, newFrontier(b, newStore(b, srv.Client(b), prefix),
					redisfrontier.WithFrontierOptions(frontier.WithLeasesPerAuthority(1000))))
			}
			ctx := context.Background()
			b.ResetTimer()
			var wg sync.WaitGroup
			for c, f := range fs {
				share := b.N / clients
				if c == 0 {
					share += b.N % clients
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for round, left := 0, share; left > 0; round++ {
						n := min(left, 1000)
						left -= n
						for i := 0; i < n; i++ {
							u := benchURL(round, i) + "?c=" + strconv.Itoa(c)
							if res, err := f.Push(ctx, &frontier.Request{URL: u}); res != frontier.Added {
								b.Errorf("Push: %v %v", res, err)
								return
							}
						}
						for i := 0; i < n; i++ {
							r, err := f.Next(ctx)
							if err != nil {
								b.Errorf("Next: %v", err)
								return
							}
							if err := f.Done(ctx, r); err != nil {
								b.Errorf("Done: %v", err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

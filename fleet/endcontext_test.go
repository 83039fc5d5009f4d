package fleet_test

import (
	"context"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
)

// runValue is a value a program puts in its run's context (a trace, a
// request id for its logs).
type runValue struct{}

// valueWatch records the Redis commands a client sends on a context
// without the run's value, by name (a transaction's or a pipeline's
// commands joined).
type valueWatch struct {
	mu      sync.Mutex
	without map[string]int
}

func (w *valueWatch) see(ctx context.Context, cmds []redis.Cmder) {
	if ctx.Value(runValue{}) != nil {
		return
	}
	var names []string
	for _, c := range cmds {
		names = append(names, strings.ToLower(c.Name()))
	}
	w.mu.Lock()
	w.without[strings.Join(names, "+")]++
	w.mu.Unlock()
}

func (w *valueWatch) DialHook(next redis.DialHook) redis.DialHook { return next }
func (w *valueWatch) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		w.see(ctx, []redis.Cmder{cmd})
		return next(ctx, cmd)
	}
}
func (w *valueWatch) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		w.see(ctx, cmds)
		return next(ctx, cmds)
	}
}

// TestEndOfRunCarriesTheRunsValues: what a process of a shared crawl
// writes and reads in Redis at the end of its run (its last counts, its
// leave from the crawl's processes, the crawl-wide summary, the finished
// mark) goes on a context that keeps the run's values, as everything
// else it sends does, though the run's context may be cancelled by then.
func TestEndOfRunCarriesTheRunsValues(t *testing.T) {
	srv := redistest.Start(t)
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 2, PagesPerHost: 4, PageBytes: 256, LinksPerPage: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	rdb := srv.Client(t)
	watch := &valueWatch{without: map[string]int{}}
	rdb.AddHook(watch)
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithWorkers(2),
		crawler.WithAllowedDomains(site.Domains()...), crawler.WithSkipLog(io.Discard),
		crawler.WithBackend(mustFleet(t, rdb, newCrawlID())))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), runValue{}, "run"), 60*time.Second)
	defer cancel()
	sum, err := c.Run(ctx, site.Seeds()...)
	if err != nil || sum.Interrupted {
		t.Fatalf("run: %v, interrupted %v", err, sum.Interrupted)
	}
	if s := fleet.SummaryOf(sum.Backend); s == nil || !s.Done || s.Err != "" {
		t.Fatalf("crawl-wide summary %+v; want the whole crawl, done", s)
	}
	watch.mu.Lock()
	defer watch.mu.Unlock()
	var without []string
	for n, k := range watch.without {
		// go-redis opens a connection (HELLO, CLIENT SETINFO) on a
		// context of its own.
		if n == "hello" || n == "client+client" {
			continue
		}
		without = append(without, n+" ×"+strconv.Itoa(k))
	}
	sort.Strings(without)
	if len(without) > 0 {
		t.Errorf("sent without the run's values: %s", strings.Join(without, ", "))
	}
}

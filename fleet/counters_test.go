package fleet_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/heedcrawl/heed/skiplog"
)

// pageCounts counts the calls a client makes that count a fetched page
// by themselves (an HINCRBY of a "pages" field outside a script).
type pageCounts struct{ n atomic.Int64 }

func (c *pageCounts) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *pageCounts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.see([]redis.Cmder{cmd})
		return next(ctx, cmd)
	}
}
func (c *pageCounts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.see(cmds)
		return next(ctx, cmds)
	}
}

func (c *pageCounts) see(cmds []redis.Cmder) {
	for _, cmd := range cmds {
		if a := cmd.Args(); len(a) >= 3 && strings.EqualFold(cmd.Name(), "hincrby") && a[2] == "pages" {
			c.n.Add(1)
			return
		}
	}
}

// TestPageCountRidesWithLeaseEnd: two processes crawl a site, and every
// fetched page is counted crawl-wide in the script call that queues its
// links and ends its lease, not in a round trip of its own; the
// crawl-wide counts are still every page of both processes, each once.
func TestPageCountRidesWithLeaseEnd(t *testing.T) {
	srv := redistest.Start(t)
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 3, PagesPerHost: 12, PageBytes: 512, LinksPerPage: 3,
		CrossHostFraction: 0.2, DisallowFraction: 0.2, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	id := newCrawlID()
	const procs = 2
	var counted pageCounts
	sums := make([]crawler.Summary, procs)
	errs := make([]error, procs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range procs {
		rdb := srv.Client(t)
		rdb.AddHook(&counted)
		c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithWorkers(3),
			crawler.WithAllowedDomains(site.Domains()...), crawler.WithSkipLog(io.Discard),
			crawler.WithBackend(mustFleet(t, rdb, id)))
		if err != nil {
			t.Fatal(err)
		}
		c.FollowLinks()
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i], errs[i] = c.Run(ctx, site.Seeds()...)
		}()
	}
	wg.Wait()
	var pages int64
	for i := range procs {
		if errs[i] != nil || sums[i].Interrupted {
			t.Fatalf("crawler %d: %v, interrupted %v", i, errs[i], sums[i].Interrupted)
		}
		pages += sums[i].Stats.Pages
	}
	if want := int64(len(site.Expected("HeedBot").Fetched)); pages != want {
		t.Errorf("the processes fetched %d pages, the oracle expects %d", pages, want)
	}
	last := fleet.SummaryOf(sums[0].Backend)
	if sums[1].Stats.Finished.After(sums[0].Stats.Finished) {
		last = fleet.SummaryOf(sums[1].Backend)
	}
	if last == nil || last.Pages != pages || !last.Done {
		t.Errorf("crawl-wide summary %+v; want %d pages, complete", last, pages)
	}
	if n := counted.n.Load(); n != 0 {
		t.Errorf("%d calls counted a page by themselves; want every page counted with its lease end", n)
	}
}

// skipWrites signals each attempt to write a skip count (an HINCRBY in a
// transaction).
type skipWrites chan struct{}

func (c skipWrites) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (c skipWrites) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (c skipWrites) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if a := cmd.Args(); len(a) >= 3 && strings.EqualFold(cmd.Name(), "hincrby") && strings.Contains(a[2].(string), string(skiplog.RobotsDisallow)) {
				select {
				case c <- struct{}{}:
				default:
				}
				break
			}
		}
		return next(ctx, cmds)
	}
}

// TestCountsOfACancelledRunStopWaiting: a counted event that waits for
// an unreachable Redis on a worker stops waiting when the run is
// cancelled, instead of holding the worker for the store's retry budget;
// the event is queued, not lost, and is in the crawl-wide counts once
// Redis is back when the run finishes.
func TestCountsOfACancelledRunStopWaiting(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	writes := make(skipWrites, 1)
	rdb.AddHook(writes)
	quiet := slog.New(slog.DiscardHandler)
	b := mustFleet(t, rdb, newCrawlID(), fleet.WithRetryFor(time.Minute), fleet.WithLogger(quiet))
	run, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess, err := b.Open(run, &backend.Job{Agent: "HeedBot", Timeout: time.Second, Logger: quiet, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Start(run); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		sess.Count(backend.Event{Kind: backend.Skipped, Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
	}()
	<-writes // the worker is waiting for Redis
	cancel()
	// The retry budget is a minute: only the run's end can have ended
	// the wait within this bound.
	select {
	case <-counted:
	case <-time.After(20 * time.Second):
		t.Fatal("Count still waits for Redis after the run was cancelled")
	}
	srv.Restart(t)
	var res backend.Result
	if err := sess.Finish(&res); err != nil {
		t.Fatal(err)
	}
	if s := fleet.SummaryOf(res.Summary); s == nil || s.Skipped[skiplog.RobotsDisallow] != 1 {
		t.Errorf("crawl-wide summary %+v; want the skip counted once", s)
	}
}

// TestStoppingProcessWritesItsCounts: once the run is cancelled, a
// counted event is still written by the worker that has it when Redis
// answers, before the worker goes on to end the request's lease, so
// that the process that sees the crawl end counts it.
func TestStoppingProcessWritesItsCounts(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	quiet := slog.New(slog.DiscardHandler)
	id := newCrawlID()
	b := mustFleet(t, rdb, id, fleet.WithLogger(quiet))
	run, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess, err := b.Open(run, &backend.Job{Agent: "HeedBot", Timeout: time.Second, Logger: quiet, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Start(run); err != nil {
		t.Fatal(err)
	}
	cancel()
	sess.Count(backend.Event{Kind: backend.Skipped, Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
	st, err := fleet.ReadStatus(context.Background(), rdb, id)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.Skipped[skiplog.RobotsDisallow]; n != 1 {
		t.Errorf("crawl-wide robots-disallow count after Count returned = %d; want 1", n)
	}
}

package redisfrontier_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/redisstore/redistest"
)

// Redis is stopped (or killed) and restarted in the middle of a crawl by
// two processes. Redis keeps an append-only file synced on every write, so
// it comes back with the crawl; the processes retry through the outage,
// log it once each way, and finish the crawl: every page is processed, and
// a page is processed twice only if a lease was reclaimed (counted).
func TestRedisRestartDuringCrawl(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(*redistest.Server)
	}{
		{"Stop", (*redistest.Server).Stop},
		{"Kill", (*redistest.Server).Kill},
	} {
		t.Run(tc.name, func(t *testing.T) { testRestart(t, tc.stop) })
	}
}

func testRestart(t *testing.T, stop func(*redistest.Server)) {
	srv := redistest.Start(t, redistest.WithPersistence())
	prefix := newPrefix(t)
	g := graph{pages: 1200, hosts: 11}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	var procs []*redisfrontier.Frontier
	for i := 0; i < 2; i++ {
		s := newStore(t, srv.Client(t), prefix, redisstore.WithLogger(log))
		procs = append(procs, newFrontier(t, s, redisfrontier.WithLeaseTimeout(5*time.Second),
			redisfrontier.WithFrontierOptions(frontier.WithLeasesPerAuthority(2))))
	}
	push(t, procs[0], g.url(0))

	processed := make([]atomic.Int32, g.pages)
	var total, lost atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for _, f := range procs {
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					r, err := f.Next(ctx)
					if errors.Is(err, frontier.ErrExhausted) {
						return
					}
					if err != nil {
						errs <- fmt.Errorf("Next: %w", err)
						return
					}
					n := g.page(r.URL)
					for _, c := range []int{2*n + 1, 2*n + 2, n / 2} {
						if c >= g.pages {
							continue
						}
						// A Push that failed leaves the request with
						// the caller; here none may fail, since the
						// outage is shorter than the retry budget.
						if _, err := f.Push(ctx, &frontier.Request{URL: g.url(c), Depth: r.Depth + 1}); err != nil {
							errs <- fmt.Errorf("Push: %w", err)
							return
						}
					}
					processed[n].Add(1)
					total.Add(1)
					time.Sleep(5 * time.Millisecond) // a fetch takes a moment
					if err := f.Done(ctx, r); errors.Is(err, redisfrontier.ErrLeaseLost) {
						lost.Add(1)
					} else if err != nil {
						errs <- fmt.Errorf("Done: %w", err)
						return
					}
				}
			}()
		}
	}
	// Let the crawl get going, then take Redis away for a while.
	for total.Load() < 100 {
		time.Sleep(5 * time.Millisecond)
	}
	stop(srv)
	atStop := total.Load()
	time.Sleep(2500 * time.Millisecond) // longer than the client's own retries
	srv.Restart(t)
	wg.Wait()
	if atStop >= int64(g.pages) {
		t.Fatalf("the crawl was over (%d pages) before Redis stopped", atStop)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	c := counts(t, procs[0])
	extra := 0
	for n := range processed {
		switch k := int(processed[n].Load()); {
		case k == 0:
			t.Errorf("page %d was never processed", n)
		case k > 1:
			extra += k - 1
		}
	}
	if extra > c.Reclaimed {
		t.Errorf("%d pages processed more than once but only %d leases reclaimed", extra, c.Reclaimed)
	}
	if c.Queued != 0 || c.Leased != 0 || c.Seen != g.pages {
		t.Errorf("Counts = %+v; want a finished crawl of %d pages", c, g.pages)
	}
	out := logs.String()
	if !strings.Contains(out, "redis unreachable") || !strings.Contains(out, "redis reachable again") {
		t.Errorf("the outage and the recovery were not logged:\n%s", out)
	}
	t.Logf("%d pages processed %d times, %d before the outage (%d reclaimed, %d Done found its lease lost); %d outage lines logged",
		g.pages, total.Load(), atStop, c.Reclaimed, lost.Load(), strings.Count(out, "redis unreachable"))
}

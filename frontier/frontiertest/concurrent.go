package frontiertest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// crawlGraph is a deterministic site graph spread over authorities: page n
// links to 2n+1 and 2n+2 (a tree that reaches every page) and back to n/2
// (a duplicate), so that every page is discovered once as new and again as
// a duplicate.
type crawlGraph struct {
	pages, hosts int
}

func (g crawlGraph) url(n int) string {
	return fmt.Sprintf("http://h%d.example/p/%d", n%g.hosts, n)
}

func (g crawlGraph) page(u string) int {
	n, err := strconv.Atoi(u[strings.LastIndexByte(u, '/')+1:])
	if err != nil {
		return -1
	}
	return n
}

func (g crawlGraph) links(n int) []int {
	var l []int
	for _, c := range []int{2*n + 1, 2*n + 2, n / 2} {
		if c < g.pages {
			l = append(l, c)
		}
	}
	return l
}

// testConcurrentCrawl runs workers that, like a crawl, take a request,
// push its links, and mark it Done (or Retry it once), until the frontier
// is exhausted. Every page must be Done exactly once, and no authority may
// ever have more leases out than allowed.
func testConcurrentCrawl(t *testing.T, s *suite) {
	const (
		workers = 8
		leases  = 2
	)
	g := crawlGraph{pages: 3000, hosts: 37}
	f := s.new(t, frontier.WithLeasesPerAuthority(leases))
	ctx, cancel := context.WithTimeout(context.Background(), 2*failsafe)
	defer cancel()
	push(t, f, &frontier.Request{URL: g.url(0)})

	var (
		doneCount = make([]atomic.Int32, g.pages)
		added     atomic.Int64
		dups      atomic.Int64
		retries   atomic.Int64
		mu        sync.Mutex
		inFlight  = make(map[string]int)
		errs      = make(chan error, workers)
	)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r, err := f.Next(ctx)
				if errors.Is(err, frontier.ErrExhausted) {
					errs <- nil
					return
				}
				if err != nil {
					errs <- err
					return
				}
				auth := authorityOfURL(r.URL)
				mu.Lock()
				inFlight[auth]++
				over := inFlight[auth] > leases
				mu.Unlock()
				if over {
					errs <- fmt.Errorf("%s has more than %d leases out", auth, leases)
					return
				}
				n := g.page(r.URL)
				if n < 0 || n >= g.pages {
					errs <- fmt.Errorf("Next handed out unknown URL %s", r.URL)
					return
				}
				for _, c := range g.links(n) {
					res, err := f.Push(ctx, &frontier.Request{URL: g.url(c), Depth: r.Depth + 1, Referrer: r.URL})
					switch {
					case err != nil:
						errs <- fmt.Errorf("Push(%s): %w", g.url(c), err)
						return
					case res == frontier.Added:
						added.Add(1)
					case res == frontier.Duplicate:
						dups.Add(1)
					}
				}
				mu.Lock()
				inFlight[auth]--
				mu.Unlock()
				if n%5 == 0 && r.Attempt == 0 {
					r.Attempt++
					retries.Add(1)
					err = f.Retry(ctx, r, time.Now().Add(time.Millisecond))
				} else {
					doneCount[n].Add(1)
					err = f.Done(ctx, r)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("worker: %v", err)
		}
	}
	for n := range doneCount {
		if c := doneCount[n].Load(); c != 1 {
			t.Errorf("page %d was done %d times", n, c)
		}
	}
	if a := added.Load() + 1; a != int64(g.pages) {
		t.Errorf("%d pushes added; want %d", a, g.pages)
	}
	st := f.Stats()
	if st.Queued != 0 || st.Leased != 0 || st.Seen != g.pages || int64(st.Duplicates) != dups.Load() {
		t.Errorf("Stats = %+v (ByAuthority omitted); want 0 queued, 0 leased, %d seen, %d duplicates", st, g.pages, dups.Load())
	}
	t.Logf("%d pages, %d duplicates, %d retries", g.pages, dups.Load(), retries.Load())
}

// testConcurrentPushers pushes one set of URLs from many goroutines at
// once while workers take them: each URL is Added exactly once.
func testConcurrentPushers(t *testing.T, s *suite) {
	const (
		pushers = 8
		urls    = 2000
		workers = 4
	)
	g := crawlGraph{pages: urls, hosts: 50}
	f := s.new(t, frontier.WithLeasesPerAuthority(4))
	ctx, cancel := context.WithTimeout(context.Background(), 2*failsafe)
	defer cancel()

	// A leased sentinel keeps the frontier from being exhausted while the
	// pushers are still at work.
	push(t, f, &frontier.Request{URL: "http://sentinel.example/"})
	sentinel := next(t, f)

	addedBy := make([]atomic.Int32, urls)
	handed := make([]atomic.Int32, urls)
	var pushWG, workWG sync.WaitGroup
	errs := make(chan error, pushers+workers)
	for p := 0; p < pushers; p++ {
		pushWG.Add(1)
		go func(p int) {
			defer pushWG.Done()
			for i := 0; i < urls; i++ {
				n := (i + p*urls/pushers) % urls // each pusher starts elsewhere
				res, err := f.Push(ctx, &frontier.Request{URL: g.url(n)})
				if err != nil {
					errs <- err
					return
				}
				if res == frontier.Added {
					addedBy[n].Add(1)
				}
			}
		}(p)
	}
	for w := 0; w < workers; w++ {
		workWG.Add(1)
		go func() {
			defer workWG.Done()
			for {
				r, err := f.Next(ctx)
				if errors.Is(err, frontier.ErrExhausted) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				if n := g.page(r.URL); n >= 0 && n < urls {
					handed[n].Add(1)
				}
				if err := f.Done(ctx, r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	pushWG.Wait()
	done(t, f, sentinel)
	workWG.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("%v", err)
	}
	for n := 0; n < urls; n++ {
		if a, h := addedBy[n].Load(), handed[n].Load(); a != 1 || h != 1 {
			t.Errorf("%s: added %d times, handed out %d times; want 1 and 1", g.url(n), a, h)
		}
	}
	if st := f.Stats(); st.Duplicates != (pushers-1)*urls || st.Seen != urls+1 {
		t.Errorf("Stats = %+v; want %d duplicates, %d seen", st, (pushers-1)*urls, urls+1)
	}
}

package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier/redisfrontier/redistest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

var crawlIDs atomic.Int64

func newCrawlID() string {
	return fmt.Sprintf("test-%d-%d", time.Now().UnixNano()%1e9, crawlIDs.Add(1))
}

// syncBuffer is a skip log shared by a crawler's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Reader() io.Reader {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.NewReader(bytes.Clone(s.b.Bytes()))
}

// The whole testweb scenario (robots.txt redirects, unreachable and flaky
// robots.txt, Crawl-delay, rate-limited pages, redirect loops) crawled by
// two crawlers sharing one crawl in Redis: together they do what one
// crawler does, as the oracle says. Every page is requested once (the
// rate-limited ones twice, by design), every robots.txt once for the crawl,
// the merged skip logs hold exactly the expected records with their
// evidence, hosts are paced across both crawlers, and each reports the
// crawl-wide counts.
func TestRedisScenarioTwoProcesses(t *testing.T) {
	srv := redistest.Start(t)
	site, err := testweb.StartScenario(testweb.WithTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	id := newCrawlID()
	const procs = 2
	logs := make([]*syncBuffer, procs)
	sums := make([]crawler.Summary, procs)
	errs := make([]error, procs)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range procs {
		logs[i] = &syncBuffer{}
		c, err := crawler.New("HeedBot",
			crawler.WithRedis(srv.Client(t), id),
			crawler.WithTransport(site.Transport()),
			crawler.WithAllowedDomains(site.Domains()...),
			crawler.WithDelay(testFloor),
			crawler.WithWorkers(4),
			crawler.WithTimeout(500*time.Millisecond),
			crawler.WithRetries(2, 100*time.Millisecond),
			crawler.WithRobotsGiveUp(3*time.Second, 200*time.Millisecond),
			crawler.WithSkipLog(logs[i]),
		)
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
	for i := range procs {
		if errs[i] != nil || sums[i].Interrupted {
			t.Fatalf("crawler %d: %v, interrupted %v", i, errs[i], sums[i].Interrupted)
		}
	}

	exp := site.Expected("HeedBot")
	requested, first := map[string]int{}, map[string]bool{}
	robots := map[string]int{}
	for _, h := range site.Hits() {
		if strings.HasSuffix(h.Path, "robots.txt") && !strings.HasPrefix(h.Served, "redirect ") {
			robots[h.Authority]++
		}
		if strings.HasPrefix(h.Served, "redirect ") || strings.HasSuffix(h.Path, "robots.txt") {
			continue
		}
		requested[h.Authority+h.Path]++
		if h.Served == "first" {
			first[h.Authority+h.Path] = true
		}
	}
	for u := range requested {
		if !exp.Fetched[u] {
			t.Errorf("requested %s, which must not be", u)
		}
	}
	for u := range exp.Fetched {
		want := 1
		if first[u] {
			want = 2
		}
		if n := requested[u]; n != want {
			t.Errorf("%s requested %d times by the fleet, want %d", u, n, want)
		}
	}
	retried := map[string]bool{} // robots.txt retried by design until it answers or heed gives up
	for _, h := range []string{testweb.HostFlaky, testweb.HostSlow, testweb.HostBroken} {
		retried[site.Host(h).Authority] = true
	}
	for a, n := range robots {
		if n != 1 && !retried[a] {
			t.Errorf("%s: robots.txt requested %d times by the fleet; want once", a, n)
		}
	}

	var merged bytes.Buffer
	st, err := skiplog.Merge(&merged, logs[0].Reader(), logs[1].Reader())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*skiplog.Record{}
	if err := skiplog.Read(&merged, func(r *skiplog.Record) error { got[r.URL] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if st.Duplicates != 0 {
		t.Errorf("%d URLs recorded by both crawlers; no lease expired", st.Duplicates)
	}
	for u, want := range exp.Skipped {
		r, ok := got[u]
		switch {
		case !ok:
			t.Errorf("no skip record for %s (want %s)", u, want.Reason)
		case r.Reason != want.Reason:
			t.Errorf("%s: reason %s, want %s", u, r.Reason, want.Reason)
		case want.RobotsURL != "" && (r.Robots == nil || r.Robots.URL != want.RobotsURL || r.Robots.Line != want.Line || r.Robots.Rule != want.Rule):
			t.Errorf("%s: evidence %+v, want %s line %d %q", u, r.Robots, want.RobotsURL, want.Line, want.Rule)
		}
	}
	for u, r := range got {
		if _, ok := exp.Skipped[u]; !ok {
			t.Errorf("unexpected skip record %s: %s %s", u, r.Reason, r.Detail)
		}
	}

	// Pacing at the servers, whichever crawler sent the requests.
	byAuth := map[string][]testweb.Hit{}
	for _, h := range site.Hits() {
		byAuth[h.Authority] = append(byAuth[h.Authority], h)
	}
	delayHost := site.Host(testweb.HostDelay).Authority
	for auth, hits := range byAuth {
		interval := testFloor
		if auth == delayHost {
			interval = time.Duration(testweb.DelayCrawlDelay * float64(time.Second))
		}
		sort.Slice(hits, func(i, j int) bool { return hits[i].Time.Before(hits[j].Time) })
		for i := 1; i < len(hits); i++ {
			if gap := hits[i].Time.Sub(hits[i-1].Time); gap < interval {
				t.Errorf("%s: %s then %s only %v apart (interval %v)", auth, hits[i-1].Path, hits[i].Path, gap, interval)
			}
		}
	}

	// Both report the crawl-wide counts: the sum of their own.
	var pages int64
	for _, s := range sums {
		pages += s.Stats.Pages
	}
	last := sums[0].Fleet
	if sums[1].Stats.Finished.After(sums[0].Stats.Finished) {
		last = sums[1].Fleet
	}
	if last == nil || last.Err != "" || last.Pages != pages || !last.Complete || last.CrawlID != id {
		t.Errorf("fleet summary %+v; want %d pages, complete", last, pages)
	}
	if last != nil && last.Skipped[skiplog.RobotsDisallow] != int64(st.ByReason[skiplog.RobotsDisallow]) {
		t.Errorf("fleet counts %d robots-disallow skips, the merged log %d", last.Skipped[skiplog.RobotsDisallow], st.ByReason[skiplog.RobotsDisallow])
	}
	var out bytes.Buffer
	if last != nil {
		last.Format(&out)
	}
	if !strings.Contains(out.String(), "complete") {
		t.Errorf("Format = %q", out.String())
	}
}

// WithRedis refuses what a shared crawl cannot honour.
func TestWithRedisRefuses(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	tests := []struct {
		name string
		opts []crawler.Option
		want string
	}{
		{"bad crawl id", []crawler.Option{crawler.WithRedis(rdb, "a b")}, "crawl id"},
		{"empty crawl id", []crawler.Option{crawler.WithRedis(rdb, "")}, "crawl id"},
		{"no client", []crawler.Option{crawler.WithRedis(nil, "x")}, "without a client"},
		{"budget", []crawler.Option{crawler.WithRedis(rdb, "x"), crawler.WithMaxPages(10)}, "budget"},
		{"per-host budget", []crawler.Option{crawler.WithRedis(rdb, "x"), crawler.WithMaxPagesPerHost(10)}, "budget"},
		{"state", []crawler.Option{crawler.WithRedis(rdb, "x"), crawler.WithState(t.TempDir())}, "WithState"},
		{"lease", []crawler.Option{crawler.WithRedis(rdb, "x", crawler.WithRedisLeaseTimeout(0))}, "lease"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := crawler.New("HeedBot", tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v; want an error about %s", err, tt.want)
			}
		})
	}
	if !regexp.MustCompile(`^heed:x:$`).MatchString(crawler.RedisPrefix("x")) {
		t.Errorf("RedisPrefix = %q", crawler.RedisPrefix("x"))
	}
}

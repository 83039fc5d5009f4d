package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
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
	site := startScenario(t)
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
		c, err := crawler.New("HeedBot", append(siteOptions(site),
			crawler.WithRedis(srv.Client(t), id),
			crawler.WithWorkers(4),
			crawler.WithSkipLog(logs[i]),
		)...)
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
	rc := countRequests(site)
	checkRequestsMatchOracle(t, rc, exp)
	retried := map[string]bool{} // robots.txt retried by design until it answers or heed gives up
	for _, h := range []string{testweb.HostFlaky, testweb.HostSlow, testweb.HostBroken} {
		retried[site.Host(h).Authority] = true
	}
	for a, n := range rc.robots {
		if n != 1 && !retried[a] {
			t.Errorf("%s: robots.txt requested %d times by the fleet; want once", a, n)
		}
	}

	var merged bytes.Buffer
	st, err := skiplog.Merge(&merged, logs[0].Reader(), logs[1].Reader())
	if err != nil {
		t.Fatal(err)
	}
	if st.Duplicates != 0 {
		t.Errorf("%d URLs recorded by both crawlers; no lease expired", st.Duplicates)
	}
	checkSkipsMatchOracle(t, skipsByURL(t, readSkips(t, &merged)), exp.Skipped)

	// Pacing at the servers, whichever crawler sent the requests.
	checkPacing(t, site, testFloor)

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

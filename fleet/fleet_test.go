package fleet_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
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
			crawler.WithBackend(mustFleet(t, srv.Client(t), id)),
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
	for a, n := range rc.Robots {
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
	checkPacing(t, site, crawltest.Floor)

	// Both report the crawl-wide counts: the sum of their own.
	var pages int64
	for _, s := range sums {
		pages += s.Stats.Pages
	}
	last := fleet.SummaryOf(sums[0].Backend)
	if sums[1].Stats.Finished.After(sums[0].Stats.Finished) {
		last = fleet.SummaryOf(sums[1].Backend)
	}
	if last == nil || last.Err != "" || last.Pages != pages || !last.Done || last.CrawlID != id {
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
func TestNewRefuses(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	for _, tt := range []struct {
		name string
		rdb  redis.UniversalClient
		id   string
		opts []fleet.Option
		want string
	}{
		{"bad crawl id", rdb, "a b", nil, "crawl id"},
		{"empty crawl id", rdb, "", nil, "crawl id"},
		{"no client", nil, "x", nil, "without a client"},
		{"lease", rdb, "x", []fleet.Option{fleet.WithLeaseTimeout(0)}, "lease"},
	} {
		if _, err := fleet.New(tt.rdb, tt.id, tt.opts...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v; want an error about %s", tt.name, err, tt.want)
		}
	}
	b := mustFleet(t, rdb, "x")
	for _, tt := range []struct {
		name string
		opts []crawler.Option
		want string
	}{
		{"budget", []crawler.Option{crawler.WithBackend(b), crawler.WithMaxPages(10)}, "budget"},
		{"per-host budget", []crawler.Option{crawler.WithBackend(b), crawler.WithMaxPagesPerHost(10)}, "budget"},
		{"state", []crawler.Option{crawler.WithBackend(b), crawler.WithBackend(jobstate.Dir(t.TempDir()))}, "one backend"},
	} {
		if _, err := crawler.New("HeedBot", tt.opts...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: crawler.New = %v; want an error about %s", tt.name, err, tt.want)
		}
	}
	if !regexp.MustCompile(`^heed:x:$`).MatchString(fleet.Prefix("x")) {
		t.Errorf("Prefix = %q", fleet.Prefix("x"))
	}
}

func mustFleet(t *testing.T, rdb redis.UniversalClient, id string, opts ...fleet.Option) *fleet.Fleet {
	t.Helper()
	b, err := fleet.New(rdb, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenEndsWithTheRun checks that a process opening a shared crawl
// while Redis does not answer gives up when its run is cancelled, with
// the run's error, instead of waiting out the store's retry budget.
func TestOpenEndsWithTheRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing answers there now
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	b := mustFleet(t, rdb, "closed", fleet.WithRetryFor(time.Hour))
	c, err := crawler.New("HeedBot", crawler.WithBackend(b))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Run(ctx, "http://127.0.0.1:1/")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want the run's context.Canceled", err)
	}
}

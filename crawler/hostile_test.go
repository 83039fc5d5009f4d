package crawler_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// healthySite is a two-host site of 540 pages, crawled beside the hostile
// authorities.
func healthySite(t *testing.T) *testweb.Site {
	return startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 270, PageBytes: 512, LinksPerPage: 3, CrossHostFraction: 0.1, Seed: 9})
}

// TestDeadSeedsDoNotHoldUpTheSite: 32 seeds that accept TCP and never
// answer, listed before a healthy two-host site. Every page of the site
// must arrive before the first dead authority is given up: waiting on the
// dead robots.txt files may not take the workers the site needs
// (invariant 9).
func TestDeadSeedsDoNotHoldUpTheSite(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{Dead: 32})
	site := healthySite(t)
	var seeds []string
	for _, d := range hostile.Dead {
		seeds = append(seeds, d+"/")
	}
	seeds = append(seeds, everyHost(site)...)

	var mu sync.Mutex
	var firstGiveUp time.Time
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot",
		crawler.WithTransport(site.Transport()),
		crawler.WithWorkers(8),
		crawler.WithDelay(0),
		crawler.WithTimeout(time.Second),
		crawler.WithRetries(1, 100*time.Millisecond),
		crawler.WithRobotsGiveUp(4*time.Second, 200*time.Millisecond),
		crawler.WithSkipLog(&skips),
	)
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnSkip(func(r *skiplog.Record) {
		if r.Reason != skiplog.RobotsUnreachable {
			return
		}
		mu.Lock()
		if firstGiveUp.IsZero() {
			firstGiveUp = time.Now()
		}
		mu.Unlock()
	})
	start := time.Now()
	sum := run(t, c, seeds...)

	want := site.Expected("HeedBot").Fetched
	got := site.PageRequests()
	var last time.Time
	for _, hit := range site.Hits() {
		if hit.Done.After(last) {
			last = hit.Done
		}
	}
	for u := range want {
		if got[u] == 0 {
			t.Errorf("page %s of the healthy site never fetched", u)
		}
	}
	if firstGiveUp.IsZero() {
		t.Fatal("no dead authority was given up")
	}
	t.Logf("healthy site (%d pages) done %v after the start; first dead host given up after %v; %d pages in all",
		len(got), last.Sub(start).Round(time.Millisecond), firstGiveUp.Sub(start).Round(time.Millisecond), sum.Stats.Pages)
	if !last.Before(firstGiveUp) {
		t.Errorf("the healthy site's last page came %v after the first dead host was given up: the dead hosts held it up",
			last.Sub(firstGiveUp).Round(time.Millisecond))
	}
	recs := skipsByURL(t, readSkips(t, &skips))
	for _, d := range hostile.Dead {
		if r := recs[d+"/"]; r == nil || r.Reason != skiplog.RobotsUnreachable {
			t.Errorf("dead seed %s: record %v, want robots-unreachable", d, r)
		}
	}
}

// TestHugeCrawlDelayIsNeverFaster: Crawl-delay: 100000000000 asks for
// more than Crawl-delay: 60; over the cap, both authorities are excluded
// alike (crawl-delay-too-long), never crawled at the floor.
func TestHugeCrawlDelayIsNeverFaster(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{})
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithWorkers(4), crawler.WithDelay(10*time.Millisecond),
		crawler.WithTimeout(time.Second), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	run(t, c, hostile.HugeDelay+"/", hostile.Delay60+"/")
	recs := skipsByURL(t, readSkips(t, &skips))
	for _, auth := range []string{hostile.HugeDelay, hostile.Delay60} {
		if r := recs[auth+"/"]; r == nil || r.Reason != skiplog.CrawlDelayTooLong {
			t.Errorf("%s/: record %v, want crawl-delay-too-long", auth, r)
		}
		for _, hit := range hostile.HitsOn(auth) {
			if hit.Path != "/robots.txt" {
				t.Errorf("%s%s was fetched, though its Crawl-delay is over the cap", auth, hit.Path)
			}
		}
	}
}

// TestRobotsRetryAfterHourIsHonoured: a robots.txt answering 429 with
// Retry-After: 3600 is fetched once; the authority is given up at once,
// its URLs recorded, and the crawl does not wait for the give-up time.
func TestRobotsRetryAfterHourIsHonoured(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{})
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithWorkers(2), crawler.WithDelay(10*time.Millisecond),
		crawler.WithTimeout(time.Second), crawler.WithRobotsGiveUp(2*time.Second, 100*time.Millisecond),
		crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	run(t, c, hostile.RateLimited+"/", hostile.RateLimited+"/a")
	if n := len(hostile.HitsOn(hostile.RateLimited)); n != 1 {
		t.Errorf("the rate-limited authority got %d requests, want 1 (its robots.txt, once)", n)
	}
	recs := skipsByURL(t, readSkips(t, &skips))
	for _, u := range []string{hostile.RateLimited + "/", hostile.RateLimited + "/a"} {
		if r := recs[u]; r == nil || r.Reason != skiplog.RobotsUnreachable || r.Status != 429 {
			t.Errorf("%s: record %v, want robots-unreachable with status 429", u, r)
		}
	}
}

// TestBudgetCountsOnlyFetchedPages: three URLs of authorities whose
// Crawl-delay is over the cap and one of a normal host, with a budget of
// three pages: the excluded URLs must not spend it, so the normal page is
// fetched.
func TestBudgetCountsOnlyFetchedPages(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{})
	site := healthySite(t)
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithWorkers(4), crawler.WithDelay(10*time.Millisecond),
		crawler.WithTransport(site.Transport()), crawler.WithTimeout(time.Second),
		crawler.WithMaxPages(3), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	root := site.Hosts()[0].BaseURL
	sum := run(t, c, hostile.Delay60+"/", hostile.HugeDelay+"/", hostile.Delay60+"/a", root)
	if got := site.PageRequests()[root]; got != 1 {
		t.Errorf("%s fetched %d times, want 1: the budget went to URLs never fetched", root, got)
	}
	recs := skipsByURL(t, readSkips(t, &skips))
	for _, u := range []string{hostile.Delay60 + "/", hostile.HugeDelay + "/", hostile.Delay60 + "/a"} {
		if r := recs[u]; r == nil || r.Reason != skiplog.CrawlDelayTooLong {
			t.Errorf("%s: record %v, want crawl-delay-too-long", u, r)
		}
	}
	if sum.Stats.Pages != 1 {
		t.Errorf("%d pages fetched, want 1", sum.Stats.Pages)
	}
}

// TestSilentHostIsGivenUpAsAGroup: a host whose pages never answer is
// given up after a few requests in a row without an answer: its remaining
// URLs get one record each (host-unreachable, with the evidence), instead
// of every URL paying its timeouts, retries and growing backoff.
func TestSilentHostIsGivenUpAsAGroup(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{})
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithWorkers(4), crawler.WithDelay(0),
		crawler.WithTimeout(300*time.Millisecond), crawler.WithRetries(2, 100*time.Millisecond),
		crawler.WithHostGiveUp(2), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	start := time.Now()
	run(t, c, hostile.Silent+"/")
	took := time.Since(start)
	recs := skipsByURL(t, readSkips(t, &skips))
	group := 0
	for i := 0; i < testweb.SilentPages; i++ {
		u := fmt.Sprintf("%s/s/%d", hostile.Silent, i)
		r := recs[u]
		switch {
		case r == nil:
			t.Errorf("%s: no record", u)
		case r.Reason == skiplog.HostUnreachable:
			group++
			if r.Err == "" || !strings.Contains(r.Detail, "in a row") {
				t.Errorf("%s: host-unreachable without its evidence: %+v", u, r)
			}
		case r.Reason != skiplog.FetchError:
			t.Errorf("%s: reason %s, want host-unreachable", u, r.Reason)
		}
	}
	tried := 0
	for _, hit := range hostile.HitsOn(hostile.Silent) {
		if strings.HasPrefix(hit.Path, "/s/") {
			tried++
		}
	}
	t.Logf("%d of %d silent pages given up as a group after %d requests, in %v", group, testweb.SilentPages, tried, took.Round(time.Millisecond))
	if group < testweb.SilentPages-2 {
		t.Errorf("only %d URLs given up as a group", group)
	}
	if tried > 4 {
		t.Errorf("%d requests to silent pages, want at most 4 (two in a row give the host up)", tried)
	}
}

package crawler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// TestLiveViewOfACrawl crawls two hosts, one with a Crawl-delay, with a
// start log, and checks what Live and Stats tell a dashboard: the
// starts of each authority (robots.txt included) spaced by the interval
// in force, the pacing state, the queue, and the robots.txt status.
func TestLiveViewOfACrawl(t *testing.T) {
	slow := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 4, PageBytes: 512, LinksPerPage: 1, CrawlDelay: 0.1, Seed: 1})
	fast := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, PageBytes: 512, LinksPerPage: 2, Seed: 2})
	c, err := crawler.New("HeedBot",
		crawler.WithDelay(20*time.Millisecond),
		crawler.WithAllowedDomains(append(slow.Domains(), fast.Domains()...)...),
		crawler.WithStartLog(8),
	)
	if err != nil {
		t.Fatal(err)
	}
	if c.Live() != nil {
		t.Fatal("Live before Run")
	}
	c.FollowLinks()
	seeds := append(slow.Seeds(), fast.Seeds()...)
	sum := run(t, c, seeds...)
	live := c.Live()
	if live == nil {
		t.Fatal("no Live after Run")
	}
	if q := live.Queue(); q.Queued != 0 || q.Leased != 0 {
		t.Fatalf("queue after the crawl: %+v", q)
	}
	starts := live.Starts()
	pacing := live.Pacing()
	for _, site := range []*testweb.Site{slow, fast} {
		auth := strings.TrimSuffix(site.Hosts()[0].BaseURL, "/")
		ps, ok := pacing[auth]
		if !ok {
			t.Fatalf("no pacing for %s: %v", auth, pacing)
		}
		st := starts[auth]
		// robots.txt and every page: the log keeps the last 8.
		want := min(8, int(sum.Stats.Authorities[auth].Pages)+1)
		if len(st) != want {
			t.Fatalf("%s: %d starts, want %d: %v", auth, len(st), want, st)
		}
		for i := 1; i < len(st); i++ {
			if gap := st[i].Sub(st[i-1]); gap < ps.Interval {
				t.Fatalf("%s: starts %v apart, interval %v", auth, gap, ps.Interval)
			}
		}
		if !ps.LastStart.Equal(st[len(st)-1]) {
			t.Fatalf("%s: last start %v, log ends %v", auth, ps.LastStart, st[len(st)-1])
		}
		if got := sum.Stats.Authorities[auth].RobotsStatus; got != 200 {
			t.Fatalf("%s: robots status %d", auth, got)
		}
	}
	if iv := pacing[strings.TrimSuffix(slow.Hosts()[0].BaseURL, "/")].Interval; iv != 100*time.Millisecond {
		t.Fatalf("slow host's interval %v, want its Crawl-delay", iv)
	}
	if iv := pacing[strings.TrimSuffix(fast.Hosts()[0].BaseURL, "/")].Interval; iv != 20*time.Millisecond {
		t.Fatalf("fast host's interval %v, want the floor", iv)
	}
}

func TestNoStartLogByDefault(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 2, PageBytes: 512, LinksPerPage: 1, Seed: 1})
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithAllowedDomains(site.Domains()...))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	run(t, c, site.Seeds()...)
	if s := c.Live().Starts(); s != nil {
		t.Fatalf("starts without a start log: %v", s)
	}
}

package fleet_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/heedcrawl/heed/skiplog"
)

// TestSilentHostIsGivenUpByTheFleet: a host whose pages never answer is
// given up for the whole crawl after a few requests in a row without an
// answer, whichever processes sent them, as one process gives it up
// (crawler's TestSilentHostIsGivenUpAsAGroup): its remaining URLs get one
// record each in the merged skip logs (host-unreachable, with the
// failures as evidence) instead of every URL paying its timeouts and
// retries in every process.
func TestSilentHostIsGivenUpByTheFleet(t *testing.T) {
	srv := redistest.Start(t)
	hostile := crawltest.StartHostile(t, testweb.HostileConfig{})
	id := newCrawlID()
	const procs = 2
	logs := make([]*syncBuffer, procs)
	errs := make([]error, procs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range procs {
		logs[i] = &syncBuffer{}
		c, err := crawler.New("HeedBot", crawler.WithWorkers(2), crawler.WithDelay(0),
			crawler.WithTimeout(300*time.Millisecond), crawler.WithRetries(2, 100*time.Millisecond),
			crawler.WithHostGiveUp(2), crawler.WithSkipLog(logs[i]),
			crawler.WithBackend(mustFleet(t, srv.Client(t), id)))
		if err != nil {
			t.Fatal(err)
		}
		c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Run(ctx, hostile.Silent+"/")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("crawler %d: %v", i, err)
		}
	}
	var merged bytes.Buffer
	if _, err := skiplog.Merge(&merged, logs[0].Reader(), logs[1].Reader()); err != nil {
		t.Fatal(err)
	}
	recs := skipsByURL(t, readSkips(t, &merged))
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
	if group < testweb.SilentPages-2 {
		t.Errorf("only %d of %d URLs given up as a group", group, testweb.SilentPages)
	}
	if tried > 4 {
		t.Errorf("%d requests to silent pages, want at most 4 (two in a row give the host up for the fleet)", tried)
	}
}

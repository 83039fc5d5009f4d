package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/heedcrawl/heed/skiplog"
)

// TestStoppingProcessLeavesACutSitemapToTheOthers stops one process of a
// shared crawl while its sitemap is being streamed, once it has queued a
// first chunk of the pages the sitemap lists: the sitemap is not read to
// its end, so the process leaves it in the crawl's queue, as it leaves
// its queued pages, and the next process reads it again, whole. Every
// page it lists is fetched once over both processes, and nothing is
// skip-logged.
func TestStoppingProcessLeavesACutSitemapToTheOthers(t *testing.T) {
	srv := redistest.Start(t)
	s := crawltest.StartCutSitemap(t, 1000, 600)
	id := newCrawlID()
	var logs []*syncBuffer
	run := func(stop bool) crawler.Summary {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		log := &syncBuffer{}
		logs = append(logs, log)
		c, err := crawler.New("HeedBot",
			crawler.WithBackend(mustFleet(t, srv.Client(t), id)),
			crawler.WithSitemaps(s.Sitemap()),
			crawler.WithDelay(0),
			crawler.WithTimeout(2*time.Second),
			crawler.WithSkipLog(log),
		)
		if err != nil {
			t.Fatal(err)
		}
		if stop {
			go crawltest.StopWhenQueued(ctx, c, 512, s.Cut, cancel)
		}
		sum, err := c.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	first := run(true)
	st := first.Sitemaps
	t.Logf("first process: sitemap %+v", st.Sitemaps)
	if !first.Interrupted || st.Read != 0 || st.Failed != 0 || st.Interrupted != 1 || st.Incomplete != 0 {
		t.Errorf("first process: interrupted %v; the cut sitemap counted read %d, failed %d, interrupted %d, incomplete %d; want 0, 0, 1, 0",
			first.Interrupted, st.Read, st.Failed, st.Interrupted, st.Incomplete)
	}
	second := run(false)
	if second.Interrupted {
		t.Fatal("the second process was interrupted")
	}
	if n := s.Reads(); n != 2 {
		t.Errorf("the sitemap was requested %d times by the two processes; want 2 (cut, then read again)", n)
	}
	if re := second.Sitemaps; re.Read != 1 || re.Listed != int64(s.Pages) || re.Duplicates != st.PagesQueued {
		t.Errorf("second process read %d sitemaps listing %d pages, %d known; want 1 listing %d, %d known",
			re.Read, re.Listed, re.Duplicates, s.Pages, st.PagesQueued)
	}
	var recs []*skiplog.Record
	for _, l := range logs {
		recs = append(recs, crawltest.DecodeSkips(t, l.Reader())...)
	}
	for _, r := range recs {
		t.Errorf("skip-logged %s: %s %s", r.URL, r.Reason, r.Detail)
	}
	s.CheckAccounted(t, recs, s.Pages)
}

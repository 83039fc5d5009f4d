package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/skiplog"
)

// TestABrokenSitemapIsSkipLogged reads a sitemap whose server closes the
// connection after 600 of its 1,000 entries. The crawl is not stopped:
// the sitemap is failed and incomplete, counted once, and it has a
// fetch-error record saying how many entries were read and why the rest
// were not; every page read before the break is fetched, the pages past
// it are unknown to the crawl.
func TestABrokenSitemapIsSkipLogged(t *testing.T) {
	s := crawltest.StartBrokenSitemap(t, 1000, 600)
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot",
		crawler.WithSitemaps(s.Sitemap()),
		crawler.WithDelay(0),
		crawler.WithTimeout(10*time.Second),
		crawler.WithSkipLog(&skips),
	)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := sum.Sitemaps
	t.Logf("sitemaps: %+v", st.Sitemaps)
	if st.Read != 0 || st.Failed != 1 || st.Interrupted != 0 || st.Incomplete != 1 || len(st.Sitemaps) != 1 {
		t.Errorf("the broken sitemap counted read %d, failed %d, interrupted %d, incomplete %d, described %d times; want 0, 1, 0, 1, once",
			st.Read, st.Failed, st.Interrupted, st.Incomplete, len(st.Sitemaps))
	}
	if st.Listed != int64(s.Sent) || st.PagesQueued != st.Listed {
		t.Errorf("%d entries read, %d queued; want the %d sent, all queued", st.Listed, st.PagesQueued, s.Sent)
	}
	recs := readSkips(t, &skips)
	rec := skipsByURL(t, recs)[s.Sitemap()]
	if rec == nil {
		t.Fatalf("the broken sitemap has no skip-log record; records: %d", len(recs))
	}
	if want := fmt.Sprintf("%d entries read", s.Sent); rec.Reason != skiplog.FetchError || !strings.Contains(rec.Detail, want) || rec.Err == "" {
		t.Errorf("the broken sitemap's record: %s %q (error %q); want %s, %q and the read error", rec.Reason, rec.Detail, rec.Err, skiplog.FetchError, want)
	}
	if len(recs) != 1 {
		t.Errorf("%d skip-log records, want the sitemap's only", len(recs))
	}
	s.CheckAccounted(t, nil, s.Sent)
}

// TestInterruptCutsASitemapWaitingForItsHeaders interrupts a crawl (the
// in-memory default, which drains its queue) while its only sitemap's
// server has not answered: the stop must not wait for the request's
// 30 s timeout. Run returns promptly (well under that timeout), and the
// sitemap is counted as cut by the stop and skip-logged as interrupted.
func TestInterruptCutsASitemapWaitingForItsHeaders(t *testing.T) {
	s := crawltest.StartHangingSitemap(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot",
		crawler.WithSitemaps(s.Sitemap()),
		crawler.WithDelay(0),
		crawler.WithTimeout(30*time.Second),
		crawler.WithSkipLog(&skips),
	)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-s.Asked
		cancel()
	}()
	type ran struct {
		sum crawler.Summary
		err error
	}
	done := make(chan ran, 1)
	go func() {
		sum, err := c.Run(ctx)
		done <- ran{sum, err}
	}()
	var res ran
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run still running 10 s after the interrupt, with the sitemap waiting for its headers")
	}
	if res.err != nil {
		t.Fatal(res.err)
	}
	st := res.sum.Sitemaps
	if !res.sum.Interrupted || st.Interrupted != 1 || st.Failed != 0 || st.Incomplete != 0 {
		t.Errorf("interrupted %v; sitemaps cut by the stop %d, failed %d, incomplete %d; want 1, 0, 0", res.sum.Interrupted, st.Interrupted, st.Failed, st.Incomplete)
	}
	recs := readSkips(t, &skips)
	rec := skipsByURL(t, recs)[s.Sitemap()]
	if rec == nil || rec.Reason != skiplog.Interrupted || len(recs) != 1 {
		t.Fatalf("skip log: %d records, the sitemap's %+v; want the sitemap's only, interrupted", len(recs), rec)
	}
}

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

// TestInterruptCutsASitemapAndLogsIt interrupts a crawl (the in-memory
// default, which drains its queue) while its sitemap is being streamed,
// once it has queued a first chunk of the pages the sitemap lists. The
// stop cuts the reading at once, not when the request's timeout would:
// the sitemap is skip-logged as interrupted, saying how many entries were
// read, and every page read before the cut is fetched or skip-logged as
// interrupted. The pages past the cut are not known to the crawl; the
// sitemap's record accounts for them.
func TestInterruptCutsASitemapAndLogsIt(t *testing.T) {
	s := crawltest.StartCutSitemap(t, 1000, 600)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot",
		crawler.WithSitemaps(s.Sitemap()),
		crawler.WithDelay(0),
		crawler.WithTimeout(2*time.Second),
		crawler.WithSkipLog(&skips),
	)
	if err != nil {
		t.Fatal(err)
	}
	go crawltest.StopWhenQueued(ctx, c, 512, s.Cut, cancel)
	sum, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted {
		t.Fatal("the crawl was not interrupted")
	}
	st := sum.Sitemaps
	t.Logf("sitemaps: %+v", st.Sitemaps)
	if st.Read != 0 || st.Failed != 0 || st.Interrupted != 1 || st.Incomplete != 0 {
		t.Errorf("the cut sitemap counted read %d, failed %d, interrupted %d, incomplete %d; want 0, 0, 1, 0", st.Read, st.Failed, st.Interrupted, st.Incomplete)
	}
	if st.PagesQueued < 512 || st.Listed > int64(s.Sent) || st.PagesQueued != st.Listed {
		t.Errorf("%d entries read, %d queued; want at least a chunk of 512 read and queued, at most the %d sent", st.Listed, st.PagesQueued, s.Sent)
	}
	var out strings.Builder
	st.Format(&out)
	if !strings.Contains(out.String(), "1 sitemaps cut by the stop") || strings.Contains(out.String(), "INCOMPLETE") {
		t.Errorf("sitemap report:\n%s", out.String())
	}

	recs := readSkips(t, &skips)
	byURL := skipsByURL(t, recs)
	rec := byURL[s.Sitemap()]
	if rec == nil {
		t.Fatalf("the cut sitemap has no skip-log record; records: %d", len(recs))
	}
	if want := fmt.Sprintf("%d entries read", st.Listed); rec.Reason != skiplog.Interrupted || !strings.Contains(rec.Detail, want) {
		t.Errorf("the cut sitemap's record: %s %q; want %s, %q", rec.Reason, rec.Detail, skiplog.Interrupted, want)
	}
	read := make([]*skiplog.Record, 0, len(recs))
	for _, r := range recs {
		if r.URL != s.Sitemap() {
			read = append(read, r)
			if r.Reason != skiplog.Interrupted {
				t.Errorf("%s skip-logged as %s", r.URL, r.Reason)
			}
		}
	}
	s.CheckAccounted(t, read, int(st.Listed))
}

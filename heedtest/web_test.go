package heedtest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/pages"
)

// crawlSite crawls a whole site with heed's page spider into a feed and
// a skip log in dir.
func crawlSite(t *testing.T, site *heedtest.Web, dir string) (feedPath, skips string) {
	t.Helper()
	feedPath, skips = filepath.Join(dir, "pages.jsonl"), filepath.Join(dir, "skipped.jsonl")
	sf, err := os.Create(skips)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	out, err := feed.Open(feedPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithSkipLog(sf),
		crawler.WithAllowedDomains(site.Domains()...), crawler.WithTransport(site.Transport()))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	pages.Emit(c)
	c.Export(out)
	if _, err := c.Run(context.Background(), site.Seeds()...); err != nil {
		t.Fatal(err)
	}
	return feedPath, skips
}

// TestGeneratedOracle: a crawl of the generated site does what its
// oracle says.
func TestGeneratedOracle(t *testing.T) {
	site := heedtest.NewGenerated(t, heedtest.Generated{Hosts: 2, PagesPerHost: 10, PageBytes: 512, LinksPerPage: 3, CrossHostFraction: 0.2, DisallowFraction: 0.2, Seed: 3})
	feed, skips := crawlSite(t, site, t.TempDir())
	exp := site.Expected("HeedBot")
	items, recs := heedtest.ReadFeed(t, feed), heedtest.ReadSkipLog(t, skips)
	if len(items) != len(exp.Fetched) || len(recs) != len(exp.Skipped) {
		t.Errorf("%d items, %d skips; the oracle says %d and %d", len(items), len(recs), len(exp.Fetched), len(exp.Skipped))
	}
	for u, want := range exp.Skipped {
		if r := recs[u]; r == nil || r.Reason != want.Reason {
			t.Errorf("%s: %v, want %s", u, r, want.Reason)
		}
	}
	args := site.CrawlArgs()
	if len(args) != 2*len(site.Domains())+len(site.Seeds()) {
		t.Errorf("CrawlArgs %v", args)
	}
}

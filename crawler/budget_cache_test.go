package crawler_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/httpcache"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// TestBudgetCountsOnlyFetchedPagesWithCache: TestBudgetCountsOnlyFetchedPages
// with an HTTP cache in the chain, under both policies, on an empty cache
// and again on the cache the first crawl filled. URLs of authorities whose
// Crawl-delay is over the cap never spend the budget of three pages, cache
// or not: the normal host's page is fetched the first time and fetched or
// served from the cache (a page served, which spends the budget) the
// second; the excluded URLs are recorded as crawl-delay-too-long, never as
// max-pages.
func TestBudgetCountsOnlyFetchedPagesWithCache(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		policy httpcache.Policy
	}{{"replay", httpcache.Replay{}}, {"rfc9111", httpcache.RFC9111{}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hostile := startHostile(t, testweb.HostileConfig{})
			site := healthySite(t)
			root := site.Hosts()[0].BaseURL
			excluded := []string{hostile.Delay60 + "/", hostile.HugeDelay + "/", hostile.Delay60 + "/a",
				hostile.HugeDelay + "/a", hostile.Delay60 + "/b", hostile.HugeDelay + "/b"}
			dir := t.TempDir()
			for pass, wantFetched := range []string{"empty cache", "filled cache"} {
				cache := openCache(t, dir, httpcache.WithPolicy(tc.policy))
				var skips bytes.Buffer
				c, err := crawler.New("HeedBot", crawler.WithWorkers(4), crawler.WithDelay(10*time.Millisecond),
					crawler.WithTransport(site.Transport()), crawler.WithTimeout(time.Second),
					crawler.WithMaxPages(3), crawler.WithSkipLog(&skips), crawler.WithHTTPCache(cache))
				if err != nil {
					t.Fatal(err)
				}
				before := site.PageRequests()[root]
				sum := run(t, c, append(excluded, root)...)
				fetched := site.PageRequests()[root] - before
				served := fetched + int(sum.Stats.CacheHits)
				if served != 1 || (pass == 0 && fetched != 1) {
					t.Errorf("%s: %s fetched %d times and served from the cache %d times, want it once: the budget went to URLs never fetched",
						wantFetched, root, fetched, sum.Stats.CacheHits)
				}
				if sum.Stats.Pages != 1 {
					t.Errorf("%s: %d pages, want 1", wantFetched, sum.Stats.Pages)
				}
				recs := skipsByURL(t, readSkips(t, &skips))
				for _, u := range excluded {
					if r := recs[u]; r == nil || r.Reason != skiplog.CrawlDelayTooLong {
						t.Errorf("%s: %s: record %v, want crawl-delay-too-long", wantFetched, u, r)
					}
				}
				if r := recs[root]; r != nil {
					t.Errorf("%s: %s recorded %v, want it crawled", wantFetched, root, r)
				}
			}
			for _, auth := range []string{hostile.Delay60, hostile.HugeDelay} {
				for _, hit := range hostile.HitsOn(auth) {
					if hit.Path != "/robots.txt" {
						t.Errorf("%s%s was fetched, though its Crawl-delay is over the cap", auth, hit.Path)
					}
				}
			}
		})
	}
}

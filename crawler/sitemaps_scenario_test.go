package crawler_test

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// sitemapCrawl crawls the scenario as HeedBot with the given options and
// no link following: only sitemaps seed it. It records the Meta every page
// callback saw.
type sitemapCrawlResult struct {
	site    *testweb.Site
	records []*skiplog.Record
	sum     crawler.Summary
	meta    map[string]map[string]string
}

func sitemapCrawl(t *testing.T, seeds func(*testweb.Site) []string, extra ...crawler.Option) sitemapCrawlResult {
	t.Helper()
	site, err := testweb.StartScenario(testweb.WithTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	var skips bytes.Buffer
	opts := append([]crawler.Option{
		crawler.WithTransport(site.Transport()),
		crawler.WithAllowedDomains(site.Domains()...),
		crawler.WithDelay(testFloor),
		crawler.WithWorkers(8),
		crawler.WithTimeout(500 * time.Millisecond),
		crawler.WithRetries(2, 100*time.Millisecond),
		crawler.WithRobotsGiveUp(3*time.Second, 200*time.Millisecond),
		crawler.WithSkipLog(&skips),
	}, extra...)
	c, err := crawler.New("HeedBot", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	meta := map[string]map[string]string{}
	c.OnResponse(func(r *crawler.Response) {
		mu.Lock()
		meta[r.Request.URL] = r.Request.Meta
		mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := c.Run(ctx, seeds(site)...)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Interrupted {
		t.Fatal("the crawl did not finish within a minute")
	}
	var recs []*skiplog.Record
	if err := skiplog.Read(&skips, func(r *skiplog.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return sitemapCrawlResult{site: site, records: recs, sum: sum, meta: meta}
}

func everyHost(s *testweb.Site) []string {
	var seeds []string
	for _, h := range s.Hosts() {
		seeds = append(seeds, h.BaseURL)
	}
	return seeds
}

// TestSitemapsOnlyCrawl is `heed crawl --sitemaps-only` over every host
// of the scenario: it fetches exactly the listed pages robots.txt allows,
// each once, never a sitemap robots.txt disallows, and skip-logs both the
// disallowed sitemap and the disallowed listed pages with their rule.
func TestSitemapsOnlyCrawl(t *testing.T) {
	res := sitemapCrawl(t, everyHost, crawler.WithSitemapSeeds())
	exp := res.site.ExpectedSitemaps("HeedBot")

	want := map[string]testweb.InventoryRow{}
	for _, row := range exp.Rows {
		if row.Allowed {
			want[row.URL] = row
		}
	}
	got := res.site.PageRequests()
	for u, n := range got {
		if _, ok := want[u]; !ok {
			t.Errorf("requested %s, which no sitemap lists as allowed", u)
		} else if n != 1 {
			t.Errorf("%s requested %d times", u, n)
		}
	}
	for u := range want {
		if got[u] == 0 {
			t.Errorf("listed page %s was not fetched", u)
		}
	}

	// Sitemaps: every expected one read, none that robots.txt disallows.
	requested := map[string]bool{}
	for _, h := range res.site.Hits() {
		requested[h.Authority+h.Path] = true
	}
	for u := range exp.Fetched {
		if !requested[u] {
			t.Errorf("sitemap %s was not read", u)
		}
	}
	recs := map[string]*skiplog.Record{}
	for _, r := range res.records {
		if prev, dup := recs[r.URL]; dup {
			t.Errorf("two skip records for %s: %s and %s", r.URL, prev.Reason, r.Reason)
		}
		recs[r.URL] = r
	}
	for u, sk := range exp.Skipped {
		if requested[u] {
			t.Errorf("sitemap %s was requested although robots.txt disallows it", u)
		}
		r := recs[u]
		if r == nil || r.Reason != sk.Reason || r.Robots == nil || r.Robots.Line != sk.Line || r.Robots.Rule != sk.Rule {
			t.Errorf("sitemap %s: skip record %+v, want %s line %d %q", u, r, sk.Reason, sk.Line, sk.Rule)
		}
	}
	for _, row := range exp.Rows {
		if row.Allowed {
			continue
		}
		r := recs[row.URL]
		if r == nil || r.Reason != row.Reason || r.Robots == nil || r.Robots.Line != row.Line || r.Robots.Rule != row.Rule || !slices.Equal(r.Robots.Group, row.Group) {
			t.Errorf("listed %s: skip record %+v, want %s line %d %q", row.URL, r, row.Reason, row.Line, row.Rule)
		}
	}

	// The listed pages' callbacks see the sitemap's metadata.
	for _, row := range exp.Rows {
		if !row.Allowed {
			continue
		}
		m := res.meta[row.URL]
		if m == nil {
			continue // reported above
		}
		if m[crawler.MetaSitemap] != row.Sitemap || m[crawler.MetaLastMod] != row.LastMod ||
			m[crawler.MetaChangeFreq] != row.ChangeFreq || m[crawler.MetaPriority] != row.Priority {
			t.Errorf("%s: meta %v, want sitemap %s lastmod %q changefreq %q priority %q", row.URL, m, row.Sitemap, row.LastMod, row.ChangeFreq, row.Priority)
		}
	}
	if res.sum.Sitemaps.Read < int64(len(exp.Fetched)) {
		t.Errorf("summary: %d sitemaps read, want at least %d", res.sum.Sitemaps.Read, len(exp.Fetched))
	}
	// Sitemap fetches are paced like pages: per authority, requests are
	// never closer than the floor (or the delay host's Crawl-delay).
	byAuth := map[string][]testweb.Hit{}
	for _, h := range res.site.Hits() {
		byAuth[h.Authority] = append(byAuth[h.Authority], h)
	}
	delayHost := res.site.Host(testweb.HostDelay).Authority
	for auth, hits := range byAuth {
		interval := testFloor
		if auth == delayHost {
			interval = time.Duration(testweb.DelayCrawlDelay * float64(time.Second))
		}
		sort.Slice(hits, func(i, j int) bool { return hits[i].Time.Before(hits[j].Time) })
		for i := 1; i < len(hits); i++ {
			if gap := hits[i].Time.Sub(hits[i-1].Time); gap < interval {
				t.Errorf("%s: %s then %s only %v apart (interval %v)", auth, hits[i-1].Path, hits[i].Path, gap, interval)
			}
		}
	}

	// Nothing else is in the skip log but the probes of the two sites
	// whose robots.txt stays unreachable.
	unreachable := map[string]bool{
		res.site.Host(testweb.HostBroken).URL("/sitemap.xml"): true,
		res.site.Host(testweb.HostSlow).URL("/sitemap.xml"):   true,
	}
	for u, r := range recs {
		_, sitemap := exp.Skipped[u]
		listed := slices.ContainsFunc(exp.Rows, func(row testweb.InventoryRow) bool { return row.URL == u && !row.Allowed })
		if !sitemap && !listed && !(unreachable[u] && r.Reason == skiplog.RobotsUnreachable) {
			t.Errorf("unexpected skip record %s %s: %s", r.Reason, u, r.Detail)
		}
	}
	if t.Failed() {
		var lines []string
		for _, r := range res.records {
			lines = append(lines, "  "+string(r.Reason)+" "+r.URL+" "+r.Detail)
		}
		t.Logf("skip log:\n%s", strings.Join(lines, "\n"))
	}
}

// TestDiscoveryBesideLinks crawls the whole scenario following links with
// sitemap discovery on. Every page a readable sitemap lists is also linked,
// so the pages fetched and the skip log are the oracle's, plus the sitemap
// robots.txt disallows; every sitemap is read.
func TestDiscoveryBesideLinks(t *testing.T) {
	res := crawlScenario(t, crawler.WithSitemapDiscovery())
	exp := res.site.Expected("HeedBot")
	maps := res.site.ExpectedSitemaps("HeedBot")
	for u, n := range res.site.PageRequests() {
		if !exp.Fetched[u] {
			t.Errorf("requested %s, which the oracle does not fetch", u)
		} else if n > 2 {
			t.Errorf("%s requested %d times", u, n)
		}
	}
	requested := map[string]bool{}
	for _, h := range res.site.Hits() {
		requested[h.Authority+h.Path] = true
	}
	for u := range maps.Fetched {
		if !requested[u] {
			t.Errorf("sitemap %s was not read", u)
		}
	}
	got := map[string]*skiplog.Record{}
	for _, r := range res.records {
		got[r.URL] = r
	}
	for u, want := range exp.Skipped {
		if r := got[u]; r == nil || r.Reason != want.Reason {
			t.Errorf("%s: record %+v, want %s", u, r, want.Reason)
		}
	}
	for u, r := range got {
		if _, ok := exp.Skipped[u]; ok {
			continue
		}
		if sk, ok := maps.Skipped[u]; !ok || r.Reason != sk.Reason {
			t.Errorf("unexpected skip record %s %s: %s", r.Reason, u, r.Detail)
		}
	}
}

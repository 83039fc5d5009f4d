package crawler_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// sitemapCrawl crawls the scenario as HeedBot with the given options and
// no link following: only sitemaps seed it. It records the Meta every page
// callback saw.
func sitemapCrawl(t *testing.T, seeds func(*testweb.Site) []string, extra ...crawler.Option) scenarioResult {
	t.Helper()
	var mu sync.Mutex
	meta := map[string]map[string]string{}
	res := scenarioCrawl(t, seeds, func(c *crawler.Crawler) {
		c.OnResponse(func(r *crawler.Response) {
			mu.Lock()
			meta[r.Request.URL] = r.Request.Meta
			mu.Unlock()
		})
	}, extra...)
	res.meta = meta
	return res
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
	requested := hitURLs(res.site)
	for u := range exp.Fetched {
		if !requested[u] {
			t.Errorf("sitemap %s was not read", u)
		}
	}
	recs := skipsByURL(t, res.records)
	for u, sk := range exp.Skipped {
		if requested[u] {
			t.Errorf("sitemap %s was requested although robots.txt disallows it", u)
		}
		checkSkip(t, u, recs[u], sk)
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
	checkPacing(t, res.site, testFloor)

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
	requested := hitURLs(res.site)
	for u := range maps.Fetched {
		if !requested[u] {
			t.Errorf("sitemap %s was not read", u)
		}
	}
	want := maps.Skipped // and the oracle's skips beside them
	for u, sk := range exp.Skipped {
		want[u] = sk
	}
	checkSkipsMatchOracle(t, skipsByURL(t, res.records), want)
}

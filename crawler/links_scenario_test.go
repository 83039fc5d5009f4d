package crawler_test

import (
	"strings"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// TestFollowLinksWithoutADOM crawls the scenario twice, following links:
// once with FollowLinks alone, whose pages are read by the streaming link
// scanner, and once with an OnResponse callback that builds every page's
// DOM first, which makes FollowLinks read the DOM. Both crawls must match
// the oracle, request the same URLs and skip-log the same ones.
func TestFollowLinksWithoutADOM(t *testing.T) {
	scanned := crawlScenario(t)
	dom := scenarioCrawl(t, (*testweb.Site).Seeds, func(c *crawler.Crawler) {
		c.OnResponse(func(r *crawler.Response) {
			if r.Doc() == nil {
				t.Errorf("%s: no DOM", r.Request.URL)
			}
		})
		c.FollowLinks()
	})
	for _, res := range []scenarioResult{scanned, dom} {
		exp := res.site.Expected("HeedBot")
		checkRequestsMatchOracle(t, countRequests(res.site), exp)
		checkSkipsMatchOracle(t, skipsByURL(t, res.records), exp.Skipped)
	}
	// The two sites listen on different ports: compare paths by host name.
	a, b := portable(scanned.site, hitURLs(scanned.site)), portable(dom.site, hitURLs(dom.site))
	for u := range a {
		if !b[u] {
			t.Errorf("%s requested when links were scanned, not with the DOM", u)
		}
	}
	for u := range b {
		if !a[u] {
			t.Errorf("%s requested with the DOM, not when links were scanned", u)
		}
	}
	if scanned.sum.Stats.Pages != dom.sum.Stats.Pages || len(scanned.records) != len(dom.records) {
		t.Errorf("scanned: %d pages, %d skips; DOM: %d pages, %d skips",
			scanned.sum.Stats.Pages, len(scanned.records), dom.sum.Stats.Pages, len(dom.records))
	}
}

// portable rewrites each authority of site in urls to its host's name.
func portable(site *testweb.Site, urls map[string]bool) map[string]bool {
	names := map[string]string{}
	for _, h := range site.Hosts() {
		names[h.Authority] = h.Name
	}
	out := map[string]bool{}
	for u := range urls {
		for auth, name := range names {
			if rest, ok := strings.CutPrefix(u, auth); ok && (rest == "" || rest[0] == '/') {
				u = name + rest
				break
			}
		}
		out[u] = true
	}
	return out
}

package cli

import (
	"sort"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// startSite starts a generated testweb site, stopped when the test ends.
func startSite(t *testing.T, g testweb.Generated) *testweb.Site {
	t.Helper()
	site, err := testweb.StartGenerated(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	return site
}

// siteArgs are the arguments of heed crawl that crawl the whole of site:
// its domains allowed, then its seeds. They go last on the command line.
func siteArgs(site *testweb.Site) []string {
	var args []string
	for _, d := range site.Domains() {
		args = append(args, "--allow-domain", d)
	}
	return append(args, site.Seeds()...)
}

// checkSkipReasons checks a skip log, by URL, against the oracle's
// expected set: every expected URL recorded with the expected reason, and
// no other URL recorded.
func checkSkipReasons(t *testing.T, got map[string]*skiplog.Record, want map[string]testweb.ExpectedSkip) {
	t.Helper()
	for u, w := range want {
		r, ok := got[u]
		switch {
		case !ok:
			t.Errorf("no skip record for %s (want %s)", u, w.Reason)
		case r.Reason != w.Reason:
			t.Errorf("%s: reason %s, want %s", u, r.Reason, w.Reason)
		}
	}
	for u, r := range got {
		if _, ok := want[u]; !ok {
			t.Errorf("unexpected skip record %s: %s %s", u, r.Reason, r.Detail)
		}
	}
}

// fetchedAgain checks the page requests by URL against the oracle: every
// page it fetches requested, no other. It returns how many more times than
// once each page was requested, for the pages requested more than once.
func fetchedAgain(t *testing.T, pages map[string]int, exp testweb.Expected) map[string]int {
	t.Helper()
	for u := range exp.Fetched {
		if pages[u] == 0 {
			t.Errorf("%s was never fetched", u)
		}
	}
	again := map[string]int{}
	for u, n := range pages {
		if !exp.Fetched[u] {
			t.Errorf("fetched %s, which must not be", u)
		}
		if n > 1 {
			again[u] = n - 1
		}
	}
	return again
}

// eachGap calls gap for every two consecutive requests the site answered
// on one authority, robots.txt included, in the order they arrived.
func eachGap(site *testweb.Site, gap func(authority string, prev, next testweb.Hit)) {
	byAuth := map[string][]testweb.Hit{}
	for _, h := range site.Hits() {
		byAuth[h.Authority] = append(byAuth[h.Authority], h)
	}
	for auth, hits := range byAuth {
		sort.Slice(hits, func(i, j int) bool { return hits[i].Time.Before(hits[j].Time) })
		for i := 1; i < len(hits); i++ {
			gap(auth, hits[i-1], hits[i])
		}
	}
}

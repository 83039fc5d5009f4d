package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// scenarioCrawl crawls the whole testweb scenario as HeedBot and returns
// the site, the skip-log records and the summary.
type scenarioResult struct {
	site    *testweb.Site
	records []*skiplog.Record
	sum     crawler.Summary
	floor   time.Duration
}

const testFloor = 40 * time.Millisecond

func crawlScenario(t *testing.T, extra ...crawler.Option) scenarioResult {
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
	c.FollowLinks()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := c.Run(ctx, site.Seeds()...)
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
	return scenarioResult{site: site, records: recs, sum: sum, floor: testFloor}
}

func TestScenarioMatchesTheOracle(t *testing.T) {
	res := crawlScenario(t)
	exp := res.site.Expected("HeedBot")

	// What was requested, robots.txt files and their redirect hops aside.
	requested := map[string]int{}
	answeredFirst := map[string]bool{} // rate-limited pages: 429 or 503 first, then 200
	for _, h := range res.site.Hits() {
		if strings.HasPrefix(h.Served, "redirect ") || strings.HasSuffix(h.Path, "robots.txt") {
			continue // robots.txt fetches and their redirect hops
		}
		requested[h.Authority+h.Path]++
		if h.Served == "first" {
			answeredFirst[h.Authority+h.Path] = true
		}
	}
	for u := range requested {
		if !exp.Fetched[u] {
			why := "never discovered"
			if s, ok := exp.Skipped[u]; ok {
				why = string(s.Reason)
			}
			t.Errorf("requested %s, which must not be (%s)", u, why)
		}
	}
	for u := range exp.Fetched {
		n := requested[u]
		want := 1
		if answeredFirst[u] {
			want = 2
		}
		if n != want {
			t.Errorf("%s requested %d times, want %d", u, n, want)
		}
	}

	got := map[string]*skiplog.Record{}
	for _, r := range res.records {
		if prev, dup := got[r.URL]; dup {
			t.Errorf("two skip records for %s: %s and %s", r.URL, prev.Reason, r.Reason)
		}
		got[r.URL] = r
	}
	for u, want := range exp.Skipped {
		r, ok := got[u]
		if !ok {
			t.Errorf("no skip record for %s (want %s)", u, want.Reason)
			continue
		}
		if r.Reason != want.Reason {
			t.Errorf("%s: reason %s, want %s", u, r.Reason, want.Reason)
			continue
		}
		if want.RobotsURL == "" {
			continue
		}
		if r.Robots == nil {
			t.Errorf("%s: no robots evidence", u)
			continue
		}
		if r.Robots.URL != want.RobotsURL || r.Robots.Line != want.Line || r.Robots.Rule != want.Rule || r.Robots.Status != want.RobotsStatus {
			t.Errorf("%s: evidence %s line %d %q status %d, want %s line %d %q status %d", u,
				r.Robots.URL, r.Robots.Line, r.Robots.Rule, r.Robots.Status, want.RobotsURL, want.Line, want.Rule, want.RobotsStatus)
		}
		if want.Line > 0 && (!slices.Equal(r.Robots.Group, want.Group) || !slices.Equal(r.Robots.GroupLines, want.GroupLines)) {
			t.Errorf("%s: group %v %v, want %v %v", u, r.Robots.Group, r.Robots.GroupLines, want.Group, want.GroupLines)
		}
	}
	for u, r := range got {
		if _, ok := exp.Skipped[u]; !ok {
			t.Errorf("unexpected skip record %s: %s %s", u, r.Reason, r.Detail)
		}
	}
	if t.Failed() {
		var lines []string
		for u, r := range got {
			lines = append(lines, fmt.Sprintf("  %s %s %s", r.Reason, u, r.Detail))
		}
		sort.Strings(lines)
		t.Logf("skip log:\n%s", strings.Join(lines, "\n"))
	}
}

// TestScenarioPacing checks invariant 6 at the servers: per authority, the
// gap between consecutive requests (robots.txt included) is never below
// the floor or the host's Crawl-delay.
func TestScenarioPacing(t *testing.T) {
	res := crawlScenario(t)
	byAuth := map[string][]testweb.Hit{}
	for _, h := range res.site.Hits() {
		byAuth[h.Authority] = append(byAuth[h.Authority], h)
	}
	delayHost := res.site.Host(testweb.HostDelay).Authority
	for auth, hits := range byAuth {
		interval := res.floor
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
	if len(byAuth[delayHost]) < 5 {
		t.Fatalf("the delay host was barely crawled: %d requests", len(byAuth[delayHost]))
	}
}

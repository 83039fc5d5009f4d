package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// testFloor is the floor delay of the crawls of a testweb site: short
// enough for a quick test, long enough that a pacing fault shows at the
// servers.
const testFloor = 40 * time.Millisecond

// startScenario starts the testweb scenario (every robots.txt case heed
// must handle), stopped when the test ends.
func startScenario(t *testing.T) *testweb.Site {
	t.Helper()
	site, err := testweb.StartScenario(testweb.WithTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	return site
}

func startGenerated(t *testing.T, g testweb.Generated) *testweb.Site {
	t.Helper()
	site, err := testweb.StartGenerated(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	return site
}

// testTimings are the pacing, timeouts and retries of every crawl or
// inventory of a testweb site: the scenario's slow and unreachable
// robots.txt files must be given up on within the test's minute.
func testTimings() []crawler.Option {
	return []crawler.Option{
		crawler.WithDelay(testFloor),
		crawler.WithTimeout(500 * time.Millisecond),
		crawler.WithRetries(2, 100*time.Millisecond),
		crawler.WithRobotsGiveUp(3*time.Second, 200*time.Millisecond),
	}
}

// siteOptions are the standard options of a crawl of site: its transport
// and domains, eight workers and [testTimings]. Options appended to them
// override them.
func siteOptions(site *testweb.Site) []crawler.Option {
	return append([]crawler.Option{
		crawler.WithTransport(site.Transport()),
		crawler.WithAllowedDomains(site.Domains()...),
		crawler.WithWorkers(8),
	}, testTimings()...)
}

// everyHost seeds a crawl with the root of every host of s.
func everyHost(s *testweb.Site) []string {
	var seeds []string
	for _, h := range s.Hosts() {
		seeds = append(seeds, h.BaseURL)
	}
	return seeds
}

// scenarioResult is a finished crawl of the testweb scenario as HeedBot:
// the site, the skip-log records, the summary and, for a sitemap crawl,
// the Meta every page callback saw.
type scenarioResult struct {
	site    *testweb.Site
	records []*skiplog.Record
	sum     crawler.Summary
	floor   time.Duration
	meta    map[string]map[string]string
}

// scenarioCrawl crawls a fresh scenario site from seeds to the end with
// [siteOptions] and extra, once setup has given the crawler its callbacks.
func scenarioCrawl(t *testing.T, seeds func(*testweb.Site) []string, setup func(*crawler.Crawler), extra ...crawler.Option) scenarioResult {
	t.Helper()
	site := startScenario(t)
	var skips bytes.Buffer
	opts := append(append(siteOptions(site), crawler.WithSkipLog(&skips)), extra...)
	c, err := crawler.New("HeedBot", opts...)
	if err != nil {
		t.Fatal(err)
	}
	setup(c)
	sum := run(t, c, seeds(site)...)
	return scenarioResult{site: site, records: readSkips(t, &skips), sum: sum, floor: testFloor}
}

// run runs c to the end, within a minute.
func run(t *testing.T, c *crawler.Crawler, seeds ...string) crawler.Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := c.Run(ctx, seeds...)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Interrupted {
		t.Fatal("crawl did not finish within a minute")
	}
	return sum
}

// runUntilItems runs c from seeds and cancels it once it has emitted n
// items; the crawl must end interrupted.
func runUntilItems(t *testing.T, c *crawler.Crawler, n int64, seeds ...string) crawler.Summary {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.OnItem(func(any) {
		if c.Stats().Snapshot().Items >= n {
			cancel()
		}
	})
	sum, err := c.Run(ctx, seeds...)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted {
		t.Fatal("the crawl was not interrupted")
	}
	return sum
}

// readSkips decodes the skip log in buf, leaving buf as it is.
func readSkips(t *testing.T, buf *bytes.Buffer) []*skiplog.Record {
	t.Helper()
	return decodeSkips(t, bytes.NewReader(buf.Bytes()))
}

// readSkipLog decodes the skip-log file at path.
func readSkipLog(t *testing.T, path string) []*skiplog.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return decodeSkips(t, f)
}

func decodeSkips(t *testing.T, r io.Reader) []*skiplog.Record {
	t.Helper()
	var recs []*skiplog.Record
	if err := skiplog.Read(r, func(r *skiplog.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

// skipsByURL indexes recs by URL; a URL with two records fails the test
// (invariant 7: exactly one record for every URL not fetched).
func skipsByURL(t *testing.T, recs []*skiplog.Record) map[string]*skiplog.Record {
	t.Helper()
	got := make(map[string]*skiplog.Record, len(recs))
	for _, r := range recs {
		if prev, dup := got[r.URL]; dup {
			t.Errorf("two skip records for %s: %s and %s", r.URL, prev.Reason, r.Reason)
		}
		got[r.URL] = r
	}
	return got
}

// checkSkip checks the record r of the URL u against the oracle's want:
// the reason and, where robots.txt decided, its evidence (robots.txt URL
// and status, the deciding line and rule, the group that applied).
func checkSkip(t *testing.T, u string, r *skiplog.Record, want testweb.ExpectedSkip) {
	t.Helper()
	switch {
	case r == nil:
		t.Errorf("no skip record for %s (want %s)", u, want.Reason)
		return
	case r.Reason != want.Reason:
		t.Errorf("%s: reason %s, want %s", u, r.Reason, want.Reason)
		return
	case want.RobotsURL == "":
		return
	case r.Robots == nil:
		t.Errorf("%s: no robots evidence", u)
		return
	}
	if r.Robots.URL != want.RobotsURL || r.Robots.Line != want.Line || r.Robots.Rule != want.Rule || r.Robots.Status != want.RobotsStatus {
		t.Errorf("%s: evidence %s line %d %q status %d, want %s line %d %q status %d", u,
			r.Robots.URL, r.Robots.Line, r.Robots.Rule, r.Robots.Status, want.RobotsURL, want.Line, want.Rule, want.RobotsStatus)
	}
	if want.Line > 0 && (!slices.Equal(r.Robots.Group, want.Group) || !slices.Equal(r.Robots.GroupLines, want.GroupLines)) {
		t.Errorf("%s: group %v %v, want %v %v", u, r.Robots.Group, r.Robots.GroupLines, want.Group, want.GroupLines)
	}
}

// checkSkipsMatchOracle checks a skip log, by URL, against the oracle's
// expected set: every expected URL has its record ([checkSkip]) and no
// other URL has one. Once the test has failed it logs the whole skip log.
func checkSkipsMatchOracle(t *testing.T, got map[string]*skiplog.Record, want map[string]testweb.ExpectedSkip) {
	t.Helper()
	for u, w := range want {
		checkSkip(t, u, got[u], w)
	}
	for u, r := range got {
		if _, expected := want[u]; !expected {
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

// requestCounts are the requests a testweb site answered, as the oracle
// counts them.
type requestCounts struct {
	// pages counts the requests by URL, robots.txt files and their
	// redirect hops aside.
	pages map[string]int
	// answeredFirst holds the rate-limited pages: answered 429 or 503
	// first, then 200, so requested twice by design.
	answeredFirst map[string]bool
	// robots counts the robots.txt fetches by authority, redirect hops
	// aside.
	robots map[string]int
}

func countRequests(site *testweb.Site) requestCounts {
	rc := requestCounts{pages: map[string]int{}, answeredFirst: map[string]bool{}, robots: map[string]int{}}
	for _, h := range site.Hits() {
		hop, robots := strings.HasPrefix(h.Served, "redirect "), strings.HasSuffix(h.Path, "robots.txt")
		if robots && !hop {
			rc.robots[h.Authority]++
		}
		if hop || robots {
			continue
		}
		rc.pages[h.Authority+h.Path]++
		if h.Served == "first" {
			rc.answeredFirst[h.Authority+h.Path] = true
		}
	}
	return rc
}

// checkRequestsMatchOracle checks that every page requested is one the
// oracle fetches, and that each of those was requested once (a
// rate-limited one twice).
func checkRequestsMatchOracle(t *testing.T, rc requestCounts, exp testweb.Expected) {
	t.Helper()
	for u := range rc.pages {
		if !exp.Fetched[u] {
			why := "never discovered"
			if s, ok := exp.Skipped[u]; ok {
				why = string(s.Reason)
			}
			t.Errorf("requested %s, which must not be (%s)", u, why)
		}
	}
	for u := range exp.Fetched {
		want := 1
		if rc.answeredFirst[u] {
			want = 2
		}
		if n := rc.pages[u]; n != want {
			t.Errorf("%s requested %d times, want %d", u, n, want)
		}
	}
}

// hitURLs is the set of URLs (authority and path) the site was asked for.
func hitURLs(site *testweb.Site) map[string]bool {
	requested := map[string]bool{}
	for _, h := range site.Hits() {
		requested[h.Authority+h.Path] = true
	}
	return requested
}

// checkPacing checks invariant 6 at the servers: per authority, the gap
// between consecutive requests (robots.txt included) is never below floor,
// or the delay host's Crawl-delay there. It returns the hits by authority.
func checkPacing(t *testing.T, site *testweb.Site, floor time.Duration) map[string][]testweb.Hit {
	t.Helper()
	byAuth := map[string][]testweb.Hit{}
	for _, h := range site.Hits() {
		byAuth[h.Authority] = append(byAuth[h.Authority], h)
	}
	delayHost := site.Host(testweb.HostDelay).Authority
	for auth, hits := range byAuth {
		interval := floor
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
	return byAuth
}

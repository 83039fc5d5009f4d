// Package crawltest holds what the tests of heed's crawls share: the
// testweb sites they crawl, the standard options of such a crawl, and
// the checks of a crawl's skip log, requests and pacing against the
// site's oracle. It is for tests only (its functions take a *testing.T).
package crawltest

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

// Floor is the floor delay of the crawls of a testweb site: short
// enough for a quick test, long enough that a pacing fault shows at the
// servers.
const Floor = 40 * time.Millisecond

// StartScenario starts the testweb scenario (every robots.txt case heed
// must handle), stopped when the test ends.
func StartScenario(t *testing.T) *testweb.Site {
	t.Helper()
	site, err := testweb.StartScenario(testweb.WithTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	return site
}

func StartGenerated(t *testing.T, g testweb.Generated) *testweb.Site {
	t.Helper()
	site, err := testweb.StartGenerated(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	return site
}

// StartHostile starts the hostile authorities, stopped when the test ends.
func StartHostile(t *testing.T, cfg testweb.HostileConfig) *testweb.Hostile {
	t.Helper()
	h, err := testweb.StartHostile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// Timings are the pacing, timeouts and retries of every crawl or
// inventory of a testweb site: the scenario's slow and unreachable
// robots.txt files must be given up on within the test's minute.
func Timings() []crawler.Option {
	return []crawler.Option{
		crawler.WithDelay(Floor),
		crawler.WithTimeout(500 * time.Millisecond),
		crawler.WithRetries(2, 100*time.Millisecond),
		crawler.WithRobotsGiveUp(3*time.Second, 200*time.Millisecond),
	}
}

// SiteOptions are the standard options of a crawl of site: its transport
// and domains, eight workers and [Timings]. Options appended to them
// override them.
func SiteOptions(site *testweb.Site) []crawler.Option {
	return append([]crawler.Option{
		crawler.WithTransport(site.Transport()),
		crawler.WithAllowedDomains(site.Domains()...),
		crawler.WithWorkers(8),
	}, Timings()...)
}

// EveryHost seeds a crawl with the root of every host of s.
func EveryHost(s *testweb.Site) []string {
	var seeds []string
	for _, h := range s.Hosts() {
		seeds = append(seeds, h.BaseURL)
	}
	return seeds
}

// Run runs c to the end, within a minute.
func Run(t *testing.T, c *crawler.Crawler, seeds ...string) crawler.Summary {
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

// RunUntilItems runs c from seeds and cancels it once it has emitted n
// items; the crawl must end interrupted.
func RunUntilItems(t *testing.T, c *crawler.Crawler, n int64, seeds ...string) crawler.Summary {
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

// ReadSkips decodes the skip log in buf, leaving buf as it is.
func ReadSkips(t *testing.T, buf *bytes.Buffer) []*skiplog.Record {
	t.Helper()
	return DecodeSkips(t, bytes.NewReader(buf.Bytes()))
}

// ReadSkipLog decodes the skip-log file at path.
func ReadSkipLog(t *testing.T, path string) []*skiplog.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return DecodeSkips(t, f)
}

func DecodeSkips(t *testing.T, r io.Reader) []*skiplog.Record {
	t.Helper()
	var recs []*skiplog.Record
	if err := skiplog.Read(r, func(r *skiplog.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

// SkipsByURL indexes recs by URL; a URL with two records fails the test
// (invariant 7: exactly one record for every URL not fetched).
func SkipsByURL(t *testing.T, recs []*skiplog.Record) map[string]*skiplog.Record {
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

// CheckSkip checks the record r of the URL u against the oracle's want:
// the reason and, where robots.txt decided, its evidence (robots.txt URL
// and status, the deciding line and rule, the group that applied).
func CheckSkip(t *testing.T, u string, r *skiplog.Record, want testweb.ExpectedSkip) {
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

// CheckSkipsMatchOracle checks a skip log, by URL, against the oracle's
// expected set: every expected URL has its record ([CheckSkip]) and no
// other URL has one. Once the test has failed it logs the whole skip log.
func CheckSkipsMatchOracle(t *testing.T, got map[string]*skiplog.Record, want map[string]testweb.ExpectedSkip) {
	t.Helper()
	for u, w := range want {
		CheckSkip(t, u, got[u], w)
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

// RequestCounts are the requests a testweb site answered, as the oracle
// counts them.
type RequestCounts struct {
	// Pages counts the requests by URL, robots.txt files and their
	// redirect hops aside.
	Pages map[string]int
	// AnsweredFirst holds the rate-limited pages: answered 429 or 503
	// first, then 200, so requested twice by design.
	AnsweredFirst map[string]bool
	// Robots counts the robots.txt fetches by authority, redirect hops
	// aside.
	Robots map[string]int
}

func CountRequests(site *testweb.Site) RequestCounts {
	rc := RequestCounts{Pages: map[string]int{}, AnsweredFirst: map[string]bool{}, Robots: map[string]int{}}
	for _, h := range site.Hits() {
		hop, robots := strings.HasPrefix(h.Served, "redirect "), strings.HasSuffix(h.Path, "robots.txt")
		if robots && !hop {
			rc.Robots[h.Authority]++
		}
		if hop || robots {
			continue
		}
		rc.Pages[h.Authority+h.Path]++
		if h.Served == "first" {
			rc.AnsweredFirst[h.Authority+h.Path] = true
		}
	}
	return rc
}

// CheckRequestsMatchOracle checks that every page requested is one the
// oracle fetches, and that each of those was requested once (a
// rate-limited one twice).
func CheckRequestsMatchOracle(t *testing.T, rc RequestCounts, exp testweb.Expected) {
	t.Helper()
	for u := range rc.Pages {
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
		if rc.AnsweredFirst[u] {
			want = 2
		}
		if n := rc.Pages[u]; n != want {
			t.Errorf("%s requested %d times, want %d", u, n, want)
		}
	}
}

// HitURLs is the set of URLs (authority and path) the site was asked for.
func HitURLs(site *testweb.Site) map[string]bool {
	requested := map[string]bool{}
	for _, h := range site.Hits() {
		requested[h.Authority+h.Path] = true
	}
	return requested
}

// CheckPacing checks invariant 6 at the servers: per authority, the gap
// between consecutive requests (robots.txt included) is never below floor,
// or the delay host's Crawl-delay there. It returns the hits by authority.
func CheckPacing(t *testing.T, site *testweb.Site, floor time.Duration) map[string][]testweb.Hit {
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

// URLSetHead opens a urlset sitemap; close it with "</urlset>".
const URLSetHead = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`

// URLEntry is a urlset's entry for loc, with its lastmod unless "".
func URLEntry(loc, lastmod string) string {
	if lastmod == "" {
		return "<url><loc>" + loc + "</loc></url>"
	}
	return "<url><loc>" + loc + "</loc><lastmod>" + lastmod + "</lastmod></url>"
}

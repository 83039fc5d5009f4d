package inventory_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/inventory"
	"github.com/heedcrawl/heed/skiplog"
)

func runInventory(t *testing.T, sites []string, opts ...crawler.Option) ([]inventory.Row, *inventory.Summary, map[string]*skiplog.Record) {
	t.Helper()
	var skips bytes.Buffer
	opts = append(append(testTimings(), crawler.WithSkipLog(&skips)), opts...)
	inv, err := inventory.New("HeedBot", opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rows []inventory.Row
	sum, err := inv.Run(ctx, sites, func(r inventory.Row) error { rows = append(rows, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	recs := skipsByURL(t, readSkips(t, &skips))
	if p := inv.Progress(); p.URLs != int64(len(rows)) || p.Disallowed != int64(sum.Disallowed) || p.Sitemaps != int64(sum.Read) {
		t.Errorf("progress %+v disagrees with %d rows, summary %d disallowed, %d read", p, len(rows), sum.Disallowed, sum.Read)
	}
	return rows, sum, recs
}

// utcLastMod is a lastmod as the oracle writes it (a date or an RFC 3339
// time), in RFC 3339 UTC.
func utcLastMod(t *testing.T, raw string) string {
	if raw == "" {
		return ""
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if v, err := time.Parse(layout, raw); err == nil {
			return v.UTC().Format(time.RFC3339)
		}
	}
	t.Fatalf("the oracle's lastmod %q is neither a date nor RFC 3339", raw)
	return ""
}

// TestInventoryMatchesTheOracle builds the inventory of every host of the
// scenario and compares it, row by row and in order, with the oracle's.
func TestInventoryMatchesTheOracle(t *testing.T) {
	site := startScenario(t)
	rows, sum, recs := runInventory(t, everyHost(site), crawler.WithTransport(site.Transport()))
	exp := site.ExpectedSitemaps("HeedBot")

	if len(rows) != len(exp.Rows) {
		t.Errorf("%d rows, want %d", len(rows), len(exp.Rows))
	}
	var disallowed []string
	for i := 0; i < min(len(rows), len(exp.Rows)); i++ {
		got, want := rows[i], exp.Rows[i]
		if got.URL != want.URL || got.LastModRaw != want.LastMod || got.LastMod != utcLastMod(t, want.LastMod) || got.ChangeFreq != want.ChangeFreq ||
			got.Priority != want.Priority || got.Sitemap != want.Sitemap || got.Allowed != want.Allowed {
			t.Errorf("row %d:\n got  %+v\n want %+v", i, got, want)
			continue
		}
		if want.Allowed {
			continue
		}
		disallowed = append(disallowed, want.URL)
		if got.Reason != want.Reason || got.Line != want.Line || got.Rule != want.Rule ||
			got.RobotsURL != want.RobotsURL || !slices.Equal(got.Group, want.Group) {
			t.Errorf("row %d verdict: got %s line %d %q %v %s, want %s line %d %q %v %s", i,
				got.Reason, got.Line, got.Rule, got.Group, got.RobotsURL, want.Reason, want.Line, want.Rule, want.Group, want.RobotsURL)
		}
	}

	// The summary lists the disallowed listed URLs, with their rules.
	var listed []string
	for _, r := range sum.DisallowedURLs {
		listed = append(listed, r.URL)
		if r.Line == 0 || r.Rule == "" {
			t.Errorf("summary: disallowed %s without its rule", r.URL)
		}
	}
	if sum.Disallowed != len(disallowed) || !slices.Equal(listed, disallowed) {
		t.Errorf("summary disallowed %d %v, want %v", sum.Disallowed, listed, disallowed)
	}

	// No page was fetched; every expected sitemap was, none robots.txt
	// disallows; that one is in the skip log with its rule.
	if pages := site.PageRequests(); len(pages) != 0 {
		t.Errorf("the inventory fetched pages: %v", pages)
	}
	requested := hitURLs(site)
	for u := range exp.Fetched {
		if !requested[u] {
			t.Errorf("sitemap %s not read", u)
		}
	}
	if sum.Read != len(exp.Fetched) {
		t.Errorf("summary: %d sitemaps read, want %d", sum.Read, len(exp.Fetched))
	}
	for u, sk := range exp.Skipped {
		if requested[u] {
			t.Errorf("sitemap %s requested although robots.txt disallows it", u)
		}
		checkSkip(t, u, recs[u], sk)
		i := slices.IndexFunc(sum.Sitemaps, func(s inventory.Sitemap) bool { return s.URL == u })
		if i < 0 || sum.Sitemaps[i].NotRead != sk.Reason {
			t.Errorf("summary does not report %s as not read (%s)", u, sk.Reason)
		}
	}
	if sum.Excluded != len(exp.Skipped) {
		t.Errorf("summary: %d excluded, want %d", sum.Excluded, len(exp.Skipped))
	}
	// The two sites whose robots.txt stays unreachable make it incomplete.
	if sum.Complete() || sum.Unreadable != 2 {
		t.Errorf("summary complete %v with %d unreadable; want the broken and slow sites unreadable", sum.Complete(), sum.Unreadable)
	}
	var out bytes.Buffer
	sum.Format(&out)
	for _, want := range []string{"sitemap_index.xml: sitemapindex, 0 URLs, 3 sitemaps", "not read: robots-disallow", fmt.Sprintf("listed in a sitemap but disallowed by robots.txt: %d", len(disallowed))} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("formatted summary lacks %q:\n%s", want, out.String())
		}
	}
	if t.Failed() {
		t.Logf("summary:\n%s", out.String())
	}
}

// TestInventoryOtherAuthorities: a URL a sitemap lists on another
// authority is flagged out of scope (reason sitemap-scope) and that
// authority is never contacted, not even for its robots.txt; duplicates
// are counted, and --since filters.
func TestInventoryOtherAuthorities(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the inventory fetched %s from an authority only a sitemap named", r.URL)
	}))
	defer other.Close()
	var self *httptest.Server
	self = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /old\nSitemap: "+self.URL+"/a.xml\nSitemap: "+self.URL+"/moved.xml\n")
		case "/a.xml":
			io.WriteString(w, urlsetHead+urlEntry(self.URL+"/x", "2026-02-01")+urlEntry(other.URL+"/open/1", "")+
				urlEntry(other.URL+"/closed", "")+urlEntry(self.URL+"/old", "2020-01-01")+"</urlset>")
		case "/moved.xml":
			http.Redirect(w, r, "/b.xml", http.StatusFound)
		case "/b.xml":
			io.WriteString(w, self.URL+"/x\n"+self.URL+"/y\n")
		default:
			t.Errorf("the inventory fetched %s", r.URL)
			http.NotFound(w, r)
		}
	}))
	defer self.Close()
	since := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rows, sum, recs := runInventory(t, []string{self.URL + "/", self.URL + "/again"}, crawler.WithSitemapSince(since))

	type brief struct {
		url, sitemap string
		allowed      bool
		line         int
		robots       string
		problem      string
		dup          bool
	}
	want := []brief{
		{self.URL + "/x", self.URL + "/a.xml", true, 0, self.URL + "/robots.txt", "", false},
		{other.URL + "/open/1", self.URL + "/a.xml", false, 0, "", "out-of-scope", false},
		{other.URL + "/closed", self.URL + "/a.xml", false, 0, "", "out-of-scope", false},
		{self.URL + "/x", self.URL + "/moved.xml", true, 0, self.URL + "/robots.txt", "", true},
		{self.URL + "/y", self.URL + "/moved.xml", true, 0, self.URL + "/robots.txt", "", false},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		got := brief{r.URL, r.Sitemap, r.Allowed, r.Line, r.RobotsURL, r.Problem, r.Duplicate}
		if got != w {
			t.Errorf("row %d: %+v, want %+v", i, got, w)
		}
	}
	if r := recs[self.URL+"/old"]; r == nil || r.Reason != skiplog.SitemapFilter || !strings.Contains(r.Detail, "lastmod 2020-01-01 is before 2025-01-01") {
		t.Errorf("filtered entry: record %+v", r)
	}
	for _, r := range rows[1:3] {
		if r.Reason != skiplog.SitemapScope {
			t.Errorf("%s: reason %q, want sitemap-scope", r.URL, r.Reason)
		}
	}
	if sum.Filtered != 1 || sum.Duplicates != 1 || sum.CrossDuplicates != 1 || sum.Unique != 4 || sum.Disallowed != 0 || sum.Problems != 2 || len(sum.Sites) != 1 {
		t.Errorf("summary %+v", sum)
	}
	if !sum.Complete() {
		t.Errorf("summary not complete: %+v", sum)
	}
}

func TestNormalizeLastMod(t *testing.T) {
	plus2 := time.FixedZone("+02", 2*3600)
	for _, tc := range []struct {
		raw     string
		t       time.Time
		want    string
		invalid bool
	}{
		{"", time.Time{}, "", false},
		{"  ", time.Time{}, "", false},
		{"2025-01-01", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "2025-01-01T00:00:00Z", false},
		{"2025-01-02T08:00:00+02:00", time.Date(2025, 1, 2, 8, 0, 0, 0, plus2), "2025-01-02T06:00:00Z", false},
		{"2025-01-02T08:00:00.5+02:00", time.Date(2025, 1, 2, 8, 0, 0, 5e8, plus2), "2025-01-02T06:00:00.5Z", false},
		{"yesterday", time.Time{}, "", true},
	} {
		got, invalid := inventory.NormalizeLastMod(tc.raw, tc.t)
		if got != tc.want || invalid != tc.invalid {
			t.Errorf("NormalizeLastMod(%q) = %q, %v; want %q, %v", tc.raw, got, invalid, tc.want, tc.invalid)
		}
	}
}

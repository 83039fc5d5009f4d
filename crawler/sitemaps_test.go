package crawler_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/skiplog"
)

// mapSite is a one-host test server: robots.txt and sitemaps from a map,
// every other path a small HTML page. It counts requests per path.
type mapSite struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string]string // path -> body; a body starting "->" redirects there
	hits  map[string]int
}

func newMapSite(t *testing.T, files map[string]string) *mapSite {
	t.Helper()
	s := &mapSite{files: files, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		body, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		switch {
		case ok && strings.HasPrefix(body, "->"):
			http.Redirect(w, r, strings.TrimPrefix(body, "->"), http.StatusMovedPermanently)
		case ok:
			io.WriteString(w, strings.ReplaceAll(body, "BASE", s.srv.URL))
		case r.URL.Path == "/robots.txt" || strings.HasSuffix(r.URL.Path, ".xml"):
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><title>%s</title></html>", r.URL.Path)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *mapSite) url(p string) string { return s.srv.URL + p }

func (s *mapSite) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// crawlMaps runs a crawl without link following and returns the skip
// records by URL, the summary and the callback (handler name) each page
// was parsed by.
func crawlMaps(t *testing.T, extra ...crawler.Option) (map[string]*skiplog.Record, crawler.Summary, map[string]string) {
	t.Helper()
	return crawlMapsFrom(t, nil, extra...)
}

func crawlMapsFrom(t *testing.T, seeds []string, extra ...crawler.Option) (map[string]*skiplog.Record, crawler.Summary, map[string]string) {
	t.Helper()
	var skips bytes.Buffer
	opts := append([]crawler.Option{
		crawler.WithDelay(time.Millisecond),
		crawler.WithWorkers(4),
		crawler.WithTimeout(5 * time.Second),
		crawler.WithRetries(0, time.Millisecond),
		crawler.WithSkipLog(&skips),
	}, extra...)
	c, err := crawler.New("HeedBot", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	parsedBy := map[string]string{}
	for _, name := range []string{"", "product", "blog"} {
		name := name
		c.Handle(name).OnResponse(func(r *crawler.Response) {
			mu.Lock()
			parsedBy[r.URL.Path] = name
			mu.Unlock()
		})
	}
	sum := run(t, c, seeds...)
	return skipsByURL(t, readSkips(t, &skips)), sum, parsedBy
}

const urlsetHead = crawltest.URLSetHead

var urlEntry = crawltest.URLEntry

func TestSitemapFilters(t *testing.T) {
	urlset := urlsetHead +
		urlEntry("BASE/products/1", "2026-02-01") +
		urlEntry("BASE/products/2", "2025-06-30") + // before --since
		urlEntry("BASE/products/3", "") + // no lastmod: kept
		urlEntry("BASE/blog/1", "not a date") + // unreadable lastmod: kept
		urlEntry("BASE/blog/2", "2026-01-01") + // exactly --since: kept
		urlEntry("BASE/tmp/1", "2026-03-01") + // excluded
		urlEntry("BASE/about", "2026-03-01") + // no rule matches
		urlEntry("http://elsewhere.test/x", "") + // another authority: out of scope
		urlEntry("ftp://BASE/y", "") + // invalid
		urlEntry("BASE/products/1", "2026-02-01") + // listed twice
		"</urlset>"
	s := newMapSite(t, map[string]string{"/sitemap.xml": urlset})
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs, sum, parsedBy := crawlMaps(t,
		crawler.WithSitemaps(s.url("/sitemap.xml")),
		crawler.WithSitemapSince(since),
		crawler.WithSitemapExclude(regexp.MustCompile(`/tmp/`)),
		crawler.WithSitemapRule(regexp.MustCompile(`/products/`), "product"),
		crawler.WithSitemapRule(regexp.MustCompile(`/blog/`), "blog"),
	)
	wantParsed := map[string]string{"/products/1": "product", "/products/3": "product", "/blog/1": "blog", "/blog/2": "blog"}
	for p, h := range wantParsed {
		if got, ok := parsedBy[p]; !ok || got != h {
			t.Errorf("%s parsed by %q (fetched %v), want %q", p, got, ok, h)
		}
	}
	for p := range parsedBy {
		if _, ok := wantParsed[p]; !ok {
			t.Errorf("%s was fetched; the filters should have refused it", p)
		}
	}
	wantSkip := map[string]struct {
		reason skiplog.Reason
		detail string
	}{
		s.url("/products/2"):      {skiplog.SitemapFilter, "lastmod 2025-06-30 is before 2026-01-01"},
		s.url("/tmp/1"):           {skiplog.SitemapFilter, "exclude pattern /tmp/"},
		s.url("/about"):           {skiplog.SitemapFilter, "matches no sitemap rule"},
		"http://elsewhere.test/x": {skiplog.SitemapScope, "out-of-scope"},
	}
	for u, w := range wantSkip {
		r := recs[u]
		if r == nil || r.Reason != w.reason || !strings.Contains(r.Detail, w.detail) || !strings.Contains(r.Detail, s.url("/sitemap.xml")+" line ") {
			t.Errorf("%s: record %+v, want %s with %q and the sitemap's line", u, r, w.reason, w.detail)
		}
	}
	var invalid int
	for u, r := range recs {
		if r.Reason == skiplog.InvalidURL && strings.HasPrefix(u, "ftp:") {
			invalid++
		}
	}
	if invalid != 1 || len(recs) != len(wantSkip)+1 {
		t.Errorf("%d invalid-url records, %d records in all; want 1 and %d: %v", invalid, len(recs), len(wantSkip)+1, recs)
	}
	if s.count("/products/1") != 1 {
		t.Errorf("/products/1 listed twice, fetched %d times", s.count("/products/1"))
	}
	st := sum.Sitemaps
	if st.Read != 1 || st.Listed != 10 || st.PagesQueued != 4 || st.Duplicates != 1 || st.Skipped != 5 {
		t.Errorf("sitemap stats %+v", st)
	}
}

func TestSitemapIndexesDedupLimitsAndRedirects(t *testing.T) {
	index := func(locs ...string) string {
		b := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
		for _, l := range locs {
			b += "<sitemap><loc>" + l + "</loc></sitemap>"
		}
		return b + "</sitemapindex>"
	}
	s := newMapSite(t, map[string]string{
		"/robots.txt": "User-agent: *\nDisallow: /secret/\nSitemap: BASE/index.xml\nSitemap: BASE/index.xml\n",
		// The index lists itself, a child twice, a moved sitemap, one
		// robots.txt disallows, and a chain deeper than the limit.
		"/index.xml":      index("BASE/index.xml", "BASE/a.xml", "BASE/a.xml", "BASE/old.xml", "BASE/secret/s.xml", "BASE/d1.xml", "BASE/skipme.xml"),
		"/a.xml":          urlsetHead + urlEntry("BASE/a/1", "") + "</urlset>",
		"/old.xml":        "->/new.xml",
		"/new.xml":        urlsetHead + urlEntry("BASE/new/1", "") + "</urlset>",
		"/secret/s.xml":   urlsetHead + urlEntry("BASE/secret-page", "") + "</urlset>",
		"/d1.xml":         index("BASE/d2.xml"),
		"/d2.xml":         index("BASE/d3.xml"),
		"/d3.xml":         urlsetHead + urlEntry("BASE/deep", "") + "</urlset>",
		"/skipme.xml":     urlsetHead + urlEntry("BASE/skipped", "") + "</urlset>",
		"/page-seed-only": "<html></html>",
	})
	recs, sum, parsedBy := crawlMaps(t,
		crawler.WithSitemaps(s.url("/page-seed-only")+"#not-a-sitemap-really"), // read as a sitemap: unknown format
		crawler.WithSitemapDiscovery(),
		crawler.WithSitemapLimits(2, 0),
		crawler.WithSitemapFollow(regexp.MustCompile(`/(index|a|old|new|secret/s|d\d)\.xml$`)),
	)
	for _, p := range []string{"/index.xml", "/a.xml", "/old.xml", "/new.xml", "/d1.xml", "/d2.xml"} {
		if n := s.count(p); n != 1 {
			t.Errorf("%s fetched %d times, want 1", p, n)
		}
	}
	for _, p := range []string{"/secret/s.xml", "/d3.xml", "/skipme.xml", "/sitemap.xml"} {
		if n := s.count(p); n != 0 {
			t.Errorf("%s fetched %d times, want never", p, n)
		}
	}
	for _, p := range []string{"/a/1", "/new/1"} {
		if _, ok := parsedBy[p]; !ok {
			t.Errorf("%s was not fetched", p)
		}
	}
	want := map[string]skiplog.Reason{
		s.url("/secret/s.xml"): skiplog.RobotsDisallow,
		s.url("/d3.xml"):       skiplog.SitemapLimit,
		s.url("/skipme.xml"):   skiplog.SitemapFilter,
	}
	for u, reason := range want {
		if r := recs[u]; r == nil || r.Reason != reason {
			t.Errorf("%s: record %+v, want %s", u, r, reason)
		}
	}
	if r := recs[s.url("/secret/s.xml")]; r != nil && (r.Robots == nil || r.Robots.Line != 2 || r.Robots.Rule != "Disallow: /secret/") {
		t.Errorf("disallowed sitemap evidence %+v", r.Robots)
	}
	if len(recs) != len(want) {
		t.Errorf("%d skip records, want %d: %v", len(recs), len(want), recs)
	}
	if sum.Sitemaps.Failed != 1 { // the page given as a sitemap
		t.Errorf("failed sitemaps %d, want 1: %+v", sum.Sitemaps.Failed, sum.Sitemaps.Sitemaps)
	}
}

func TestSitemapsDoNotSpendThePageBudget(t *testing.T) {
	var entries string
	for i := 0; i < 5; i++ {
		entries += urlEntry(fmt.Sprintf("BASE/p/%d", i), "")
	}
	s := newMapSite(t, map[string]string{"/s.xml": urlsetHead + entries + "</urlset>"})
	recs, sum, parsedBy := crawlMaps(t, crawler.WithSitemaps(s.url("/s.xml")), crawler.WithMaxPages(2))
	if len(parsedBy) != 2 || sum.Sitemaps.Read != 1 {
		t.Errorf("fetched %v pages and read %d sitemaps; want 2 pages and the sitemap", parsedBy, sum.Sitemaps.Read)
	}
	n := 0
	for _, r := range recs {
		if r.Reason == skiplog.MaxPages {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d max-pages records, want 3", n)
	}
}

// TestSitemapGzipBombIsBounded serves a gzipped sitemap that inflates to
// 60 MiB: heed streams it, stops at the 50 MiB limit, reports the sitemap
// truncated and keeps the pages read before the limit. The heap never
// holds anything like the document.
func TestSitemapGzipBombIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 50 MiB")
	}
	const entryBytes = 2048
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	io.WriteString(zw, urlsetHead)
	pad := strings.Repeat(" ", entryBytes-64)
	n := 0
	for written := 0; written < 60<<20; n++ {
		e := fmt.Sprintf("<url><loc>/p/%d</loc></url>%s\n", n%20, pad)
		io.WriteString(zw, e)
		written += len(e)
	}
	io.WriteString(zw, "</urlset>")
	zw.Close()
	bomb := z.Bytes()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bomb.xml.gz":
			w.Header().Set("Content-Type", "application/gzip")
			n, _ := w.Write(bomb)
			served.Add(int64(n))
		case "/robots.txt":
			http.NotFound(w, r)
		default:
			io.WriteString(w, "<html></html>")
		}
	}))
	defer srv.Close()

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	// The request timeout covers reading the body; give a slow (race
	// detector) run all the time it needs to reach the limit.
	_, sum, parsedBy := crawlMaps(t, crawler.WithSitemaps(srv.URL+"/bomb.xml.gz"), crawler.WithTimeout(10*time.Minute))
	close(stop)
	<-sampled

	var res *discovery.Result
	for i := range sum.Sitemaps.Sitemaps {
		if strings.HasSuffix(sum.Sitemaps.Sitemaps[i].URL, "/bomb.xml.gz") {
			res = &sum.Sitemaps.Sitemaps[i]
		}
	}
	if res == nil || res.TruncatedBy != "max-bytes" || !res.Compressed || res.Bytes > 50<<20+64<<10 || sum.Sitemaps.Truncated != 1 {
		t.Fatalf("bomb sitemap result %+v, truncated %d; want compressed, cut at 50 MiB by max-bytes", res, sum.Sitemaps.Truncated)
	}
	if len(parsedBy) != 20 {
		t.Errorf("%d distinct pages fetched, want the 20 listed before the limit", len(parsedBy))
	}
	grew := int64(peak.Load()) - int64(base.HeapAlloc)
	t.Logf("inflated %d MiB from %d KiB served; heap peak %d MiB above the start", res.Bytes>>20, served.Load()>>10, grew>>20)
	if grew > 24<<20 {
		t.Errorf("heap grew by %d MiB while reading a 50 MiB sitemap: it was not streamed", grew>>20)
	}
}

// TestSitemapProbeRedirect: with WithSitemapSeeds, a site whose robots.txt
// lists no sitemap and whose /sitemap.xml redirects has the target read as
// a sitemap; the seed page itself is not fetched.
func TestSitemapProbeRedirect(t *testing.T) {
	s := newMapSite(t, map[string]string{
		"/sitemap.xml": "->/real.xml",
		"/real.xml":    urlsetHead + urlEntry("BASE/listed", "2026-01-02") + "</urlset>",
	})
	// A second site, reached through a sitemap given by the user, is not
	// a seed: its robots.txt Sitemap lines are not read.
	other := newMapSite(t, map[string]string{
		"/robots.txt": "User-agent: *\nSitemap: BASE/robots-listed.xml\n",
		"/given.xml":  "BASE/given-page\n",
	})
	recs, sum, parsedBy := crawlMapsFrom(t, []string{s.url("/start")}, crawler.WithSitemapSeeds(),
		crawler.WithSitemaps(other.url("/given.xml")), crawler.WithAllowedDomains("127.0.0.1"))
	if len(recs) != 0 {
		t.Errorf("skip records %v, want none", recs)
	}
	if _, ok := parsedBy["/listed"]; !ok || len(parsedBy) != 2 || other.count("/given-page") != 1 {
		t.Errorf("pages fetched %v, want /listed and /given-page", parsedBy)
	}
	if n := other.count("/robots-listed.xml") + other.count("/sitemap.xml"); n != 0 {
		t.Errorf("the non-seed site's sitemaps were discovered (%d requests)", n)
	}
	if s.count("/start") != 0 || s.count("/real.xml") != 1 || sum.Sitemaps.Read != 2 {
		t.Errorf("seed fetched %d times, real.xml %d times, %d sitemaps read", s.count("/start"), s.count("/real.xml"), sum.Sitemaps.Read)
	}
}

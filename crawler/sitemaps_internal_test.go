package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/sitemap"
	"github.com/heedcrawl/heed/skiplog"
)

func TestEntryFilter(t *testing.T) {
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := &sitemapConfig{
		since:   since,
		include: []*regexp.Regexp{regexp.MustCompile(`/(news|blog)/`)},
		exclude: []*regexp.Regexp{regexp.MustCompile(`/draft`)},
	}
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		loc     string
		lastmod time.Time
		raw     string
		want    string
	}{
		{"https://a.test/news/1", day(2026, 3, 1), "2026-03-01", ""},
		{"https://a.test/news/2", since, "2026-01-01", ""}, // at since: kept
		{"https://a.test/news/3", since.Add(-time.Second), "2025-12-31T23:59:59Z", "lastmod 2025-12-31T23:59:59Z is before 2026-01-01T00:00:00Z"},
		{"https://a.test/news/4", time.Time{}, "", ""},             // no lastmod: kept
		{"https://a.test/news/5", time.Time{}, "last tuesday", ""}, // unreadable: kept
		{"https://a.test/blog/draft-1", day(2026, 2, 1), "2026-02-01", "matches sitemap exclude pattern /draft"},
		{"https://a.test/shop/1", day(2026, 2, 1), "2026-02-01", "matches no sitemap include pattern"},
	}
	for _, tt := range tests {
		got := entryFilter(cfg, sitemap.Entry{Loc: tt.loc, LastMod: tt.lastmod, LastModRaw: tt.raw})
		if got != tt.want {
			t.Errorf("%s (%q): %q, want %q", tt.loc, tt.raw, got, tt.want)
		}
	}
}

func TestSitemapRulesPickCallbacks(t *testing.T) {
	m := &sitemapReader{cfg: &sitemapConfig{rules: []sitemapRule{
		{regexp.MustCompile(`/product/`), "product"},
		{regexp.MustCompile(`/product/|/p/`), "never-first"},
		{regexp.MustCompile(`/blog/`), ""},
	}}}
	tests := []struct {
		loc, callback string
		ok            bool
	}{
		{"https://a.test/product/1", "product", true},
		{"https://a.test/p/1", "never-first", true},
		{"https://a.test/blog/x", "", true},
		{"https://a.test/about", "", false},
	}
	for _, tt := range tests {
		cb, ok := m.callback(tt.loc)
		if cb != tt.callback || ok != tt.ok {
			t.Errorf("%s: %q %v, want %q %v", tt.loc, cb, ok, tt.callback, tt.ok)
		}
	}
	if cb, ok := (&sitemapReader{cfg: &sitemapConfig{}}).callback("https://a.test/x"); cb != "" || !ok {
		t.Errorf("without rules: %q %v, want the default handler", cb, ok)
	}
}

func TestFormatPriority(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		has  bool
		want string
	}{{1, true, "1.0"}, {0.5, true, "0.5"}, {0.85, true, "0.85"}, {0, true, "0.0"}, {0, false, ""}} {
		if got := FormatPriority(sitemap.Entry{Priority: tt.p, HasPriority: tt.has}); got != tt.want {
			t.Errorf("%v %v: %q, want %q", tt.p, tt.has, got, tt.want)
		}
	}
}

// FuzzSitemapAccounting hands arbitrary bodies to the crawl's sitemap
// reader, as a 200 answer to a sitemap request, and checks heed's
// accounting: no panic, every page entry read is queued, a duplicate or
// skip-logged, every record has a reason of the vocabulary, and no page
// URL is both queued and skip-logged by the reader.
func FuzzSitemapAccounting(f *testing.F) {
	const base = "http://a.test/dir/sitemap.xml"
	f.Add([]byte(`<urlset><url><loc>http://a.test/1</loc><lastmod>2020-01-01</lastmod></url><url><loc>http://a.test/1</loc></url><url><loc>http://b.test/x</loc></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://a.test/dir/sitemap.xml</loc></sitemap><sitemap><loc>/s2.xml</loc></sitemap><sitemap><loc>http://b.test/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte("http://a.test/a\n\nnot a url\nhttp://a.test/skip/me\nftp://a.test/x\n"))
	f.Add([]byte(`<rss><channel><item><link>http://a.test/news</link><pubDate>Mon, 02 Jan 2006 15:04:05 GMT</pubDate></item></channel></rss>`))
	f.Add([]byte(`<html><body>not a sitemap</body></html>`))
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(`<urlset><url><loc>http://a.test/gz</loc></url></urlset>`))
	zw.Close()
	f.Add(z.Bytes())
	f.Fuzz(func(t *testing.T, body []byte) {
		var recs []*skiplog.Record
		c, err := New("HeedBot",
			WithSitemapSince(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)),
			WithSitemapExclude(regexp.MustCompile(`/skip/`)),
			WithSitemapLimits(1, 3),
		)
		if err != nil {
			t.Fatal(err)
		}
		c.OnSkip(func(r *skiplog.Record) { recs = append(recs, r) })
		r, err := c.newRun([]string{"http://a.test/"})
		if err != nil {
			t.Fatal(err)
		}
		defer r.front.Close()
		req := &frontier.Request{URL: base, Kind: frontier.KindSitemap}
		r.maps.handle(context.Background(), &middleware.Response{Request: req, URL: base, Status: 200, Header: http.Header{}, Body: body})

		st := r.maps.snapshot()
		if st.Read+st.Failed != 1 {
			t.Fatalf("read %d failed %d, want the one sitemap counted once", st.Read, st.Failed)
		}
		if st.Listed != st.PagesQueued+st.Duplicates+st.Skipped {
			t.Fatalf("listed %d != queued %d + duplicates %d + skipped %d", st.Listed, st.PagesQueued, st.Duplicates, st.Skipped)
		}
		known := map[skiplog.Reason]bool{}
		for _, reason := range skiplog.Reasons {
			known[reason] = true
		}
		for _, rec := range recs {
			if rec.URL == "" || !known[rec.Reason] {
				t.Fatalf("bad record %+v", rec)
			}
		}
	})
}

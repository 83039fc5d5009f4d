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
	"github.com/heedcrawl/heed/skiplog"
)

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
		r, err := c.newRun(context.Background(), []string{"http://a.test/"})
		if err != nil {
			t.Fatal(err)
		}
		defer r.front.Close()
		req := &frontier.Request{URL: base, Kind: frontier.KindSitemap}
		r.maps.Handle(context.Background(), &middleware.Response{Request: req, URL: base, Status: 200, Header: http.Header{}, Body: body})

		st := r.maps.Stats()
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

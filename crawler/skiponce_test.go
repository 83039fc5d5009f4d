package crawler_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
)

// linkedTenTimes serves a home page linking to ten pages, each of which
// links to the same URLs that cannot be crawled: an invalid one, an
// off-site one and one the exclude pattern refuses (and a non-http and a
// nofollow link, which are not followed at all). Its sitemap lists the off-site URL too (written another
// way), which makes it sitemap-scope as well as offsite.
func linkedTenTimes(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: http://%s/sitemap.xml\n", r.Host)
	})
	mux.HandleFunc("/sitemap.xml", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, crawltest.URLSetHead+`<url><loc>http://OFFSITE.test:80/x</loc></url><url><loc>http://`+r.Host+`/p/0</loc></url></urlset>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 10; i++ {
			fmt.Fprintf(w, "<a href=/p/%d>%d</a>\n", i, i)
		}
	})
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<a href="http://a b/">bad</a> <a href="ftp://files.test/x">ftp</a>`+
			`<a href="http://offsite.test/x">off</a> <a href="/private/x">out</a> <a rel=nofollow href="/secret">no</a>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestOneSkipRecordPerURL checks that a URL that cannot be crawled has one
// skip-log record however many pages link to it, and one reason even when
// a sitemap and a page both refer to it, in every backend.
func TestOneSkipRecordPerURL(t *testing.T) {
	for _, mode := range []string{"memory", "state"} {
		t.Run(mode, func(t *testing.T) {
			srv := linkedTenTimes(t)
			var buf bytes.Buffer
			opts := append(crawltest.Timings(), crawler.WithDelay(0), crawler.WithSitemapDiscovery(),
				crawler.WithExclude(regexp.MustCompile(`/private/`)))
			dir := t.TempDir()
			if mode == "state" {
				opts = append(opts, crawler.WithBackend(jobstate.Dir(dir)))
			} else {
				opts = append(opts, crawler.WithSkipLog(&buf))
			}
			c, err := crawler.New("HeedBot", opts...)
			if err != nil {
				t.Fatal(err)
			}
			c.FollowLinks()
			sum := crawltest.Run(t, c, srv.URL+"/")
			var recs []*skiplog.Record
			if mode == "state" {
				recs = crawltest.ReadSkipLog(t, dir+"/skipped.jsonl")
			} else {
				recs = crawltest.ReadSkips(t, &buf)
			}
			byURL := map[string][]string{}
			for _, r := range recs {
				byURL[r.URL] = append(byURL[r.URL], string(r.Reason))
			}
			for u, reasons := range byURL {
				if len(reasons) != 1 {
					t.Errorf("%s: %d records %v, want one", u, len(reasons), reasons)
				}
			}
			for _, want := range []string{"offsite.test/x", "a b", "/private/x"} {
				n := 0
				for u := range byURL {
					if strings.Contains(u, want) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%d URLs with a record contain %q, want 1 (records: %v)", n, want, byURL)
				}
			}
			if sum.Skipped.Total != len(recs) || int(sum.Stats.SkippedTotal()) != len(recs) {
				t.Errorf("summary counts %d records, stats %d, log %d", sum.Skipped.Total, sum.Stats.SkippedTotal(), len(recs))
			}
		})
	}
}

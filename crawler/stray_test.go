package crawler_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/skiplog"
)

// TestCollyVisitIsAFollowedLink: a callback that calls colly's own Visit
// gets a followed link, not a request around the chain: one level deeper
// than its page, with the page as its referrer, so WithMaxDepth stops it
// where it stops Follow.
func TestCollyVisitIsAFollowedLink(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<p>page</p>`))
	}))
	defer srv.Close()
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithMaxDepth(1), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]string{"/": "/one", "/one": "/two"}
	var referrers sync.Map
	c.OnHTML("p", func(e *crawler.HTMLElement) {
		referrers.Store(e.Request.URL.Path, e.Response.Request.Referrer)
		if to, ok := next[e.Request.URL.Path]; ok {
			e.Request.Visit(to)
		}
	})
	run(t, c, srv.URL+"/")
	mu.Lock()
	sort.Strings(asked)
	got := strings.Join(asked, ",")
	mu.Unlock()
	if got != "/,/one,/robots.txt" {
		t.Errorf("the site was asked for %s, want /, /one and /robots.txt", got)
	}
	if ref, _ := referrers.Load("/one"); ref != srv.URL+"/" {
		t.Errorf("/one's referrer is %v, want %s/", ref, srv.URL)
	}
	recs := readSkips(t, &skips)
	if len(recs) != 1 || recs[0].URL != srv.URL+"/two" || recs[0].Reason != skiplog.Depth || recs[0].Depth != 2 {
		t.Errorf("skip log %+v, want /two at depth 2 for its depth", recs)
	}
}

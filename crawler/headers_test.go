package crawler_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/pages"
)

// TestWithHeadersReachEveryRequest: the crawl's headers go with the
// robots.txt fetch and every page; a request's own header wins.
func TestWithHeadersReachEveryRequest(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // path -> X-Token values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], r.Header.Get("X-Token")+"|"+r.Header.Get("Accept-Language"))
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<a href="/b">b</a>`))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<p>b</p>"))
		}
	}))
	defer srv.Close()
	c, err := crawler.New("HeedBot", crawler.WithDelay(0),
		crawler.WithHeaders(http.Header{"X-Token": {"secret"}, "Accept-Language": {"fr"}}))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	c.OnHTML("p", func(e *crawler.HTMLElement) {})
	c.OnResponse(func(r *crawler.Response) {
		if r.Request.URL == srv.URL+"/" {
			r.Follow(srv.URL+"/own", crawler.WithHeader("X-Token", "mine"))
		}
	})
	run(t, c, srv.URL+"/")
	mu.Lock()
	defer mu.Unlock()
	for path, want := range map[string]string{"/robots.txt": "secret|fr", "/": "secret|fr", "/b": "secret|fr", "/own": "mine|fr"} {
		if got := seen[path]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: X-Token|Accept-Language seen %q, want %q", path, got, want)
		}
	}
}

// TestWithHeadersRefused: a header that would change the identity the
// robots.txt group is matched against, or smuggle a line, is refused.
func TestWithHeadersRefused(t *testing.T) {
	for _, h := range []http.Header{
		{"User-Agent": {"OtherBot"}},
		{"user-agent": {"HeedBot"}},
		{"Host": {"example.com"}},
		{"X-A": {"1\r\nX-B: 2"}},
		{"X A": {"1"}},
	} {
		if _, err := crawler.New("HeedBot", crawler.WithHeaders(h)); err == nil {
			t.Errorf("%v accepted", h)
		}
		if _, err := crawler.ResolveSettings("HeedBot", crawler.WithHeaders(h)); err == nil {
			t.Errorf("%v accepted by ResolveSettings", h)
		}
	}
}

// TestBodyLimitIsCounted: a page cut at the body limit is counted in
// the summary and marked in its item.
func TestBodyLimitIsCounted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		size := 100
		if r.URL.Path == "/big" {
			size = 5000
		}
		w.Write([]byte(`<a href="/big">big</a>` + strings.Repeat("x", size)))
	}))
	defer srv.Close()
	var items bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithMaxBodySize(1000))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	pages.Emit(c)
	c.Export(feed.NewJSONLines(&items))
	sum := run(t, c, srv.URL+"/")
	if sum.Stats.Pages != 2 || sum.Stats.Truncated != 1 {
		t.Fatalf("pages %d, truncated %d; want 2 and 1", sum.Stats.Pages, sum.Stats.Truncated)
	}
	dec := json.NewDecoder(&items)
	for dec.More() {
		var p pages.Page
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Truncated != strings.HasSuffix(p.URL, "/big") || p.Bytes > 1000 {
			t.Errorf("%s: truncated %v, %d bytes", p.URL, p.Truncated, p.Bytes)
		}
	}
	var out bytes.Buffer
	sum.Stats.Format(&out)
	if !strings.Contains(out.String(), "cut at the body limit: 1 pages") {
		t.Errorf("summary does not say a page was cut:\n%s", out.String())
	}
}

package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
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

// strayVisitSite is a loopback site whose "/" says nofollow in its meta
// robots when nofollow is set; every page is a <p>. It records the paths
// it was asked for.
type strayVisitSite struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
}

func newStrayVisitSite(t *testing.T, nofollow bool) *strayVisitSite {
	s := &strayVisitSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.URL.Path)
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if nofollow && r.URL.Path == "/" {
			w.Write([]byte(`<html><head><meta name="robots" content="nofollow"></head><body><p>home</p></body></html>`))
			return
		}
		w.Write([]byte(`<p>` + r.URL.Path + `</p>`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *strayVisitSite) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := append([]string(nil), s.asked...)
	sort.Strings(got)
	return got
}

// TestCollyVisitOnANofollowPageIsHeld: a page that says nofollow holds a
// link its callback asked colly to Visit exactly as it holds one it
// Follows: neither is fetched, each has one nofollow record with the
// page's directive as its evidence.
func TestCollyVisitOnANofollowPageIsHeld(t *testing.T) {
	site := newStrayVisitSite(t, true)
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("p", func(e *crawler.HTMLElement) {
		if e.Request.URL.Path == "/" {
			e.Request.Visit("/visited")
			e.Response.Follow("/followed")
		}
	})
	sum := run(t, c, site.URL+"/")
	if got := strings.Join(site.paths(), ","); got != "/,/robots.txt" {
		t.Errorf("the site was asked for %s, want / and /robots.txt only", got)
	}
	if sum.Stats.CallbackErrors != 0 {
		t.Errorf("%d callback errors", sum.Stats.CallbackErrors)
	}
	recs := skipsByURL(t, readSkips(t, &skips))
	for _, p := range []string{"/visited", "/followed"} {
		r := recs[site.URL+p]
		if r == nil {
			t.Errorf("no record for %s", p)
			continue
		}
		if r.Reason != skiplog.Nofollow || r.Directive == nil || r.Directive.Page != site.URL+"/" {
			t.Errorf("%s: record %+v (directive %+v), want nofollow with / as its page", p, r, r.Directive)
		}
	}
	if len(recs) != 2 {
		t.Errorf("%d records, want 2", len(recs))
	}
}

// TestParseListsACollyVisit: Crawler.Parse lists a link its callback
// asked colly to Visit among the page's follows, in the order the
// callback asked, and fetches nothing.
func TestParseListsACollyVisit(t *testing.T) {
	c, err := crawler.New("HeedBot")
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("p", func(e *crawler.HTMLElement) {
		e.Response.Follow("/followed")
		e.Request.Visit("/visited")
	})
	resp := &middleware.Response{Request: &frontier.Request{URL: "http://a.test/dir/page", Depth: 2},
		Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(`<p>x</p>`)}
	res, err := c.Parse(context.Background(), "", resp)
	if err != nil {
		t.Fatal(err)
	}
	if res.CallbackErrors != 0 {
		t.Errorf("%d callback errors", res.CallbackErrors)
	}
	var got []string
	for _, r := range res.Requests {
		got = append(got, fmt.Sprintf("%s %d %s", r.URL, r.Depth, r.Referrer))
	}
	want := []string{"http://a.test/followed 3 http://a.test/dir/page", "http://a.test/visited 3 http://a.test/dir/page"}
	if !slices.Equal(got, want) {
		t.Errorf("follows %q, want %q", got, want)
	}
}

// TestCollyVisitOnACachedPage: a page replayed from the HTTP cache runs
// a callback that asks colly to Visit a link, and the link is followed
// as on the page fetched live: the replay reaches the same pages, from
// the cache, with no callback error.
func TestCollyVisitOnACachedPage(t *testing.T) {
	site := newStrayVisitSite(t, false)
	dir := t.TempDir()
	crawl := func() ([]string, crawler.Summary) {
		c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithHTTPCache(openCache(t, dir)))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var seen []string
		c.OnHTML("p", func(e *crawler.HTMLElement) {
			mu.Lock()
			seen = append(seen, e.Request.URL.Path)
			mu.Unlock()
			if e.Request.URL.Path == "/" {
				e.Request.Visit("/visited")
			}
		})
		sum := run(t, c, site.URL+"/")
		sort.Strings(seen)
		return seen, sum
	}
	live, sum1 := crawl()
	asked := len(site.paths())
	replay, sum2 := crawl()
	if !slices.Equal(live, []string{"/", "/visited"}) || !slices.Equal(replay, live) {
		t.Errorf("callbacks saw %q live and %q from the cache, want / and /visited both times", live, replay)
	}
	if sum1.Stats.CallbackErrors != 0 || sum2.Stats.CallbackErrors != 0 {
		t.Errorf("callback errors: %d live, %d from the cache", sum1.Stats.CallbackErrors, sum2.Stats.CallbackErrors)
	}
	if sum2.Stats.CacheHits != 2 || len(site.paths()) != asked {
		t.Errorf("the replay had %d cache hits and asked the site %d times, want 2 and 0", sum2.Stats.CacheHits, len(site.paths())-asked)
	}
}

// TestParseListsACollyPost: a callback that asks colly to Post a form
// follows it as FollowRequest would: the method, the form body and its
// Content-Type, one level deeper than the page.
func TestParseListsACollyPost(t *testing.T) {
	c, err := crawler.New("HeedBot")
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("form", func(e *crawler.HTMLElement) {
		if err := e.Request.Post(e.Attr("action"), map[string]string{"q": "heed"}); err != nil {
			t.Errorf("Post: %v", err)
		}
	})
	resp := &middleware.Response{Request: &frontier.Request{URL: "http://a.test/search"},
		Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(`<form action="/find"></form>`)}
	res, err := c.Parse(context.Background(), "", resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Requests) != 1 {
		t.Fatalf("%d follows, want 1 (callback errors %d)", len(res.Requests), res.CallbackErrors)
	}
	r := res.Requests[0]
	if r.URL != "http://a.test/find" || r.Method != http.MethodPost || string(r.Body) != "q=heed" ||
		r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.Depth != 1 {
		t.Errorf("follow %s %s %q %v depth %d, want a POST of q=heed to /find at depth 1", r.Method, r.URL, r.Body, r.Header, r.Depth)
	}
}

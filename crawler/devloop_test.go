package crawler_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/httpcache"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

func openCache(t *testing.T, dir string, opts ...httpcache.Option) *httpcache.Cache {
	t.Helper()
	store, err := httpcache.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := httpcache.New(store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// titles crawls site with a cache in dir and returns the sorted items
// (URL and title of every page) and the summary.
func titles(t *testing.T, site *testweb.Site, cache *httpcache.Cache) ([]string, crawler.Summary, []*skiplog.Record) {
	t.Helper()
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(5*time.Millisecond), crawler.WithWorkers(4),
		crawler.WithHTTPCache(cache), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var items []string
	c.FollowLinks()
	c.OnHTML("title", func(e *crawler.HTMLElement) {
		mu.Lock()
		items = append(items, e.Response.Request.URL+" "+e.Text)
		mu.Unlock()
	})
	sum := run(t, c, site.Seeds()...)
	slices.Sort(items)
	return items, sum, readSkips(t, &skips)
}

// TestCacheReplayReachesTheSiteZeroTimes: a crawl of the test site, then
// the same crawl replayed from the cache: the site's hit log shows no new
// request at all (robots.txt included), the items are the same, the skip
// log says the same, and the stats count every page as a cache hit.
func TestCacheReplayReachesTheSiteZeroTimes(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 15, PageBytes: 512, LinksPerPage: 3,
		CrossHostFraction: 0.2, DisallowFraction: 0.2, Seed: 7})
	dir := t.TempDir()
	first, sum1, skips1 := titles(t, site, openCache(t, dir))
	live := len(site.Hits())
	if len(first) == 0 || sum1.Stats.CacheHits != 0 || live == 0 {
		t.Fatalf("first crawl: %d items, %d cache hits, %d site hits", len(first), sum1.Stats.CacheHits, live)
	}
	cache := openCache(t, dir)
	second, sum2, skips2 := titles(t, site, cache)
	if n := len(site.Hits()); n != live {
		t.Fatalf("the replayed crawl reached the site %d times; want 0", n-live)
	}
	if !slices.Equal(first, second) {
		t.Errorf("replayed items differ:\n first %q\nsecond %q", first, second)
	}
	if sum2.Stats.Pages != sum1.Stats.Pages || sum2.Stats.CacheHits != sum2.Stats.Pages {
		t.Errorf("replay: %d pages, %d cache hits; first crawl %d pages", sum2.Stats.Pages, sum2.Stats.CacheHits, sum1.Stats.Pages)
	}
	if len(skips1) == 0 || len(skips1) != len(skips2) || sum1.Skipped.ByReason[skiplog.RobotsDisallow] != sum2.Skipped.ByReason[skiplog.RobotsDisallow] {
		t.Errorf("skip logs differ: %d records, then %d", len(skips1), len(skips2))
	}
	if st := cache.Stats(); st.Misses != 0 || st.Hits != sum2.Stats.Pages+int64(len(site.Hosts())) {
		t.Errorf("cache stats %+v; want every page and robots.txt a hit", st)
	}
}

// robotsSite is a loopback site whose robots.txt can change: "/" links to
// /open and /private.
type robotsSite struct {
	*httptest.Server
	mu     sync.Mutex
	robots string
	paths  []string
}

func newRobotsSite(t *testing.T) *robotsSite {
	s := &robotsSite{robots: "User-agent: *\nAllow: /\n"}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		robots := s.robots
		s.mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, robots)
		case "/":
			io.WriteString(w, `<html><title>home</title><a href="/open">o</a> <a href="/private">p</a></html>`)
		default:
			fmt.Fprintf(w, "<html><title>%s</title></html>", r.URL.Path)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *robotsSite) hits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// TestCacheNeverServesDisallowed: pages cached while robots.txt allowed
// them are not served once the robots.txt in force disallows them; the
// stored robots.txt is refetched after 24 hours, and the page that became
// disallowed is skip-logged with its rule, not replayed.
func TestCacheNeverServesDisallowed(t *testing.T) {
	s := newRobotsSite(t)
	dir := t.TempDir()
	// The cache's clock runs 25 hours ahead for the second crawl (each
	// crawl has a robots.txt cache of its own: only the stored copy ages).
	var mu sync.Mutex
	var offset time.Duration
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(offset) }
	crawl := func() (crawler.Summary, []*skiplog.Record) {
		var skips bytes.Buffer
		c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithSkipLog(&skips),
			crawler.WithHTTPCache(openCache(t, dir, httpcache.WithClock(clock))))
		if err != nil {
			t.Fatal(err)
		}
		c.FollowLinks()
		return run(t, c, s.URL+"/"), readSkips(t, &skips)
	}
	if sum, _ := crawl(); sum.Stats.Pages != 3 {
		t.Fatalf("first crawl fetched %d pages; want 3", sum.Stats.Pages)
	}
	s.mu.Lock()
	s.robots = "User-agent: *\nDisallow: /private\n"
	s.mu.Unlock()
	before := len(s.hits())
	mu.Lock()
	offset = 25 * time.Hour
	mu.Unlock()
	sum, recs := crawl()
	if got := s.hits()[before:]; !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("second crawl reached the site for %q; want only the aged-out robots.txt", got)
	}
	if sum.Stats.Pages != 2 || sum.Stats.CacheHits != 2 {
		t.Errorf("second crawl: %d pages, %d from the cache; want / and /open, both cached", sum.Stats.Pages, sum.Stats.CacheHits)
	}
	if len(recs) != 1 || recs[0].Reason != skiplog.RobotsDisallow || !strings.HasSuffix(recs[0].URL, "/private") ||
		recs[0].Robots == nil || recs[0].Robots.Rule != "Disallow: /private" {
		t.Fatalf("skip records %+v; want /private disallowed by its rule", recs)
	}
}

// TestLoginForm submits a login form found on a page: the hidden token
// goes with the typed values, the session cookie the site sets on the
// answer is sent to the next page, and that page is reached. Without a
// cookie jar the site never sees the session; with a preset cookie the
// account page is reachable directly.
func TestLoginForm(t *testing.T) {
	var mu sync.Mutex
	var posts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/login":
			io.WriteString(w, `<html><form id="login" method="post" action="/session">
				<input type="hidden" name="csrf" value="k9"><input name="user"><input type="password" name="pass">
				<input type="submit" name="go" value="Sign in"></form></html>`)
		case "/session":
			r.ParseForm()
			mu.Lock()
			posts = append(posts, r.Method+" "+r.PostForm.Encode())
			mu.Unlock()
			if r.Method != http.MethodPost || r.PostForm.Get("csrf") != "k9" || r.PostForm.Get("pass") != "pw" {
				http.Error(w, "bad login", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "ann", Path: "/"})
			http.Redirect(w, r, "/account", http.StatusSeeOther)
		case "/account":
			if c, err := r.Cookie("session"); err != nil || c.Value != "ann" {
				http.Error(w, "log in first", http.StatusForbidden)
				return
			}
			io.WriteString(w, `<html><h1>Welcome ann</h1></html>`)
		}
	}))
	defer srv.Close()
	crawl := func(seed string, opts ...crawler.Option) ([]string, crawler.Summary) {
		c, err := crawler.New("HeedBot", append([]crawler.Option{crawler.WithDelay(0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		c.OnResponse(func(r *crawler.Response) {
			if strings.HasSuffix(r.Request.URL, "/login") {
				if err := r.SubmitForm("login", map[string]string{"user": "ann", "pass": "pw"}, crawler.WithCallback("account")); err != nil {
					t.Error(err)
				}
			}
		})
		c.Handle("account").OnHTML("h1", func(e *crawler.HTMLElement) { got = append(got, e.Text) })
		return got, run(t, c, seed)
	}
	got, _ := crawl(srv.URL + "/login")
	if !slices.Equal(got, []string{"Welcome ann"}) {
		t.Fatalf("items %q; want the account page reached", got)
	}
	if len(posts) != 1 || posts[0] != "POST csrf=k9&go=Sign+in&pass=pw&user=ann" {
		t.Errorf("the site saw %q", posts)
	}
	if got, sum := crawl(srv.URL+"/login", crawler.WithoutCookies()); len(got) != 0 || sum.Stats.Statuses[403] != 1 {
		t.Errorf("without cookies: items %q, statuses %v; want the account page refused", got, sum.Stats.Statuses)
	}
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithCookies(srv.URL, &http.Cookie{Name: "session", Value: "ann"}))
	if err != nil {
		t.Fatal(err)
	}
	var direct []string
	c.OnHTML("h1", func(e *crawler.HTMLElement) { direct = append(direct, e.Text) })
	run(t, c, srv.URL+"/account")
	if !slices.Equal(direct, []string{"Welcome ann"}) {
		t.Errorf("with a preset cookie: items %q", direct)
	}
	if _, err := crawler.New("HeedBot", crawler.WithCookies("not a url")); err == nil {
		t.Error("WithCookies accepted a URL that is not one")
	}
}

// TestLinkRules: each link goes to the first rule that admits it, with
// that rule's callback; a link no rule admits is skip-logged once with
// reason no-rule, however many pages link to it.
func TestLinkRules(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/category/"):
			fmt.Fprintf(w, `<html><a href="/product/%[1]s">p</a> <a href="/about">about</a> <a href="/product/%[1]s?print=1">print</a></html>`, strings.TrimPrefix(r.URL.Path, "/category/"))
		case strings.HasPrefix(r.URL.Path, "/product/"):
			fmt.Fprintf(w, `<html><h1>%s</h1><a href="/about">about</a></html>`, r.URL.Path)
		default:
			io.WriteString(w, `<html><a href="/category/1">c1</a> <a href="/category/2">c2</a> <a href="/about">about</a> <a href="mailto:x@y">m</a></html>`)
		}
	}))
	defer srv.Close()
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var products []string
	c.FollowRules(
		crawler.LinkRule{Allow: []*regexp.Regexp{regexp.MustCompile(`/product/\d+$`)}, Callback: "product"},
		crawler.LinkRule{Allow: []*regexp.Regexp{regexp.MustCompile(`/category/`)}},
	)
	c.Handle("product").OnHTML("h1", func(e *crawler.HTMLElement) {
		mu.Lock()
		products = append(products, e.Text)
		mu.Unlock()
	})
	sum := run(t, c, srv.URL+"/")
	slices.Sort(products)
	if !slices.Equal(products, []string{"/product/1", "/product/2"}) {
		t.Errorf("products %q", products)
	}
	recs := readSkips(t, &skips)
	var refused []string
	for _, r := range recs {
		if r.Reason != skiplog.NoRule || !strings.Contains(r.Detail, "default handler") {
			t.Errorf("record %+v", r)
		}
		refused = append(refused, strings.TrimPrefix(r.URL, srv.URL))
	}
	slices.Sort(refused)
	if !slices.Equal(refused, []string{"/about", "/product/1?print=1", "/product/2?print=1"}) {
		t.Errorf("no-rule records for %q", refused)
	}
	if sum.Stats.IgnoredLinks != 1 || sum.Stats.Pages != 5 {
		t.Errorf("%d ignored links, %d pages; want the mailto: ignored and 5 pages", sum.Stats.IgnoredLinks, sum.Stats.Pages)
	}
}

// TestAutoThrottleOnLatency: with AutoThrottle, hosts answering in 10 ms
// and 200 ms get intervals that follow their latency as the formula says,
// and no gap between two requests at either server falls below its
// Crawl-delay.
func TestAutoThrottleOnLatency(t *testing.T) {
	fast := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, PageBytes: 512, LinksPerPage: 2, CrawlDelay: 0.05, Latency: 10 * time.Millisecond, Seed: 1})
	slow := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 7, PageBytes: 512, LinksPerPage: 2, CrawlDelay: 0.05, Latency: 200 * time.Millisecond, Seed: 2})
	at := politeness.AutoThrottle{TargetConcurrency: 1, StartDelay: 400 * time.Millisecond, MaxDelay: 2 * time.Second}
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithAutoThrottle(at),
		crawler.WithAllowedDomains(append(fast.Domains(), slow.Domains()...)...))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	run(t, c, append(fast.Seeds(), slow.Seeds()...)...)
	pacing := c.Live().Pacing()
	// The formula itself is checked step by step on a fake clock in
	// politeness (TestAutoThrottleConverges). Here the latencies are real
	// and a loaded machine adds to them, so the test asserts what holds
	// whatever the load: no gap at a server below the Crawl-delay, no
	// interval below max(latency, Crawl-delay) or above MaxDelay, each
	// interval moved down from the start delay, and the slow host paced
	// more slowly than the fast one.
	intervals := map[*testweb.Site]time.Duration{}
	for _, h := range []struct {
		site    *testweb.Site
		latency time.Duration
	}{{fast, 10 * time.Millisecond}, {slow, 200 * time.Millisecond}} {
		hits := h.site.Hits()
		for i := 1; i < len(hits); i++ {
			if gap := hits[i].Time.Sub(hits[i-1].Time); gap < 50*time.Millisecond {
				t.Errorf("%s: gap %v between requests %d and %d is below the Crawl-delay of 50ms", hits[i].Authority, gap, i-1, i)
			}
		}
		auth := hits[0].Authority
		st := pacing[auth]
		intervals[h.site] = st.Interval
		if st.Interval < max(50*time.Millisecond, h.latency) || st.Interval > at.MaxDelay {
			t.Errorf("%s (latency %v): interval %v; want between max(latency, Crawl-delay) and MaxDelay %v",
				auth, h.latency, st.Interval, at.MaxDelay)
		}
	}
	if intervals[fast] >= at.StartDelay {
		t.Errorf("fast host's interval %v did not come down from the start delay %v", intervals[fast], at.StartDelay)
	}
	if intervals[fast] >= intervals[slow] {
		t.Errorf("fast host's interval %v is not below the slow host's %v", intervals[fast], intervals[slow])
	}
}

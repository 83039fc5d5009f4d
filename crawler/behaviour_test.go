package crawler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/pages"
	"github.com/heedcrawl/heed/skiplog"
)

func TestUserAgentMustContainToken(t *testing.T) {
	for _, tt := range []struct {
		token, ua string
		ok        bool
	}{
		{"HeedBot", "Mozilla/5.0 (compatible; HeedBot/1.0)", true},
		{"HeedBot", "heedbot", true},
		{"HeedBot", "Mozilla/5.0 (compatible; HeedBotX/1.0)", false},
		{"HeedBot", "Mozilla/5.0 (compatible; OtherBot/1.0)", false},
		{"Heed Bot", "Heed Bot", false}, // not a product token
		{"", "anything", false},
	} {
		_, err := crawler.New(tt.token, crawler.WithUserAgent(tt.ua))
		if (err == nil) != tt.ok {
			t.Errorf("token %q, UA %q: err = %v, want ok=%v", tt.token, tt.ua, err, tt.ok)
		}
	}
	c, err := crawler.New("HeedBot")
	if err != nil || !strings.Contains(c.UserAgent(), "HeedBot/") {
		t.Errorf("default UA %q, %v", c.UserAgent(), err)
	}
}

// TestRobotsRefetchAppliesNewRules: a long crawl refetches robots.txt when
// its copy is older than the max age, and applies the new rules from then
// on (and only from then on).
func TestRobotsRefetchAppliesNewRules(t *testing.T) {
	res := crawlScenario(t, crawler.WithRobotsMaxAge(150*time.Millisecond))
	changing := res.site.Host(testweb.HostChanging)
	var v2 *testweb.Hit
	hits := res.site.HitsFor(changing.Authority)
	for i := range hits {
		if hits[i].Path == "/robots.txt" && hits[i].Served == "v2" {
			v2 = &hits[i]
			break
		}
	}
	if v2 == nil {
		t.Fatal("robots.txt was never refetched")
	}
	v1After := 0
	for _, h := range hits {
		switch {
		case strings.HasPrefix(h.Path, "/v2-blocked/") && h.Time.After(v2.Done):
			t.Errorf("%s requested after robots.txt v2 disallowed it", h.Path)
		case strings.HasPrefix(h.Path, "/v1-blocked/") && h.Time.Before(v2.Time):
			t.Errorf("%s requested while robots.txt v1 disallowed it", h.Path)
		case strings.HasPrefix(h.Path, "/v1-blocked/"):
			v1After++
		}
	}
	if v1After == 0 {
		t.Error("no /v1-blocked/ page was fetched under v2, which allows them")
	}
	for _, r := range res.records {
		if strings.Contains(r.URL, "/v2-blocked/") && (r.Robots == nil || r.Robots.FetchedAt.Before(v2.Time) || r.Robots.Rule != "Disallow: /v2-blocked/") {
			t.Errorf("%s: evidence %+v does not name the refetched file", r.URL, r.Robots)
		}
	}
}

// TestSlowHostDoesNotHoldOthers: with a single worker, a host with a long
// Crawl-delay must not hold up a host that has work ready.
func TestSlowHostDoesNotHoldOthers(t *testing.T) {
	slow := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 6, PageBytes: 512, LinksPerPage: 1, CrawlDelay: 0.4, Seed: 1})
	fast := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 60, PageBytes: 512, LinksPerPage: 3, Seed: 2})
	c, err := crawler.New("HeedBot", crawler.WithWorkers(1), crawler.WithDelay(0),
		crawler.WithAllowedDomains(append(slow.Domains(), fast.Domains()...)...))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	run(t, c, append(slow.Seeds(), fast.Seeds()...)...)
	slowHits := slow.Hits()
	fastHits := fast.Hits()
	if len(slowHits) != 7 || len(fastHits) != 61 { // pages + robots.txt
		t.Fatalf("slow host served %d requests, fast host %d; want 7 and 61", len(slowHits), len(fastHits))
	}
	lastFast := fastHits[len(fastHits)-1].Time
	// The slow host's fourth request comes at least 3 × 0.4 s after its
	// first; the fast host's 61 requests need no waiting at all.
	if fourth := slowHits[3].Time; !lastFast.Before(fourth) {
		t.Errorf("the fast host finished at %v, after the slow host's fourth request at %v: the worker waited on the slow host",
			lastFast.Sub(slowHits[0].Time), fourth.Sub(slowHits[0].Time))
	}
}

func TestCrawlDelayOverTheCapExcludesTheHost(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 5, PageBytes: 512, LinksPerPage: 1, CrawlDelay: 60, Seed: 1})
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithSkipLog(&skips), crawler.WithDelay(0), crawler.WithMaxCrawlDelay(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	sum := run(t, c, site.Seeds()...)
	if n := len(site.Hits()); n != 1 {
		t.Errorf("%d requests, want only robots.txt", n)
	}
	recs := readSkips(t, &skips)
	if len(recs) != 1 || recs[0].Reason != skiplog.CrawlDelayTooLong || sum.Skipped.ByReason[skiplog.CrawlDelayTooLong] != 1 {
		t.Fatalf("records %+v", recs)
	}
}

// TestCancelAccountsForQueuedURLs: cancelling the context stops intake,
// lets requests in flight finish, and writes every URL still queued to
// the skip log; nothing discovered is lost.
func TestCancelAccountsForQueuedURLs(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 200, PageBytes: 1024, LinksPerPage: 5, Seed: 3})
	var skips, items bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithSkipLog(&skips), crawler.WithDelay(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	c.Export(feed.NewJSONLines(&items))
	c.FollowLinks()
	pages.Emit(c)
	sum := runUntilItems(t, c, 10, site.Seeds()...)
	fetched := map[string]bool{}
	dec := json.NewDecoder(&items)
	for dec.More() {
		var p pages.Page
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		fetched[p.URL] = true
	}
	recs := readSkips(t, &skips)
	skipped := map[string]skiplog.Reason{}
	for _, r := range recs {
		skipped[r.URL] = r.Reason
	}
	if sum.Stats.Queued != int64(len(fetched)+countReason(recs, skiplog.Interrupted)) {
		t.Errorf("queued %d = fetched %d + interrupted %d does not hold", sum.Stats.Queued, len(fetched), countReason(recs, skiplog.Interrupted))
	}
	for u := range fetched {
		if _, ok := skipped[u]; ok {
			t.Errorf("%s both fetched and skipped", u)
		}
	}
	if countReason(recs, skiplog.Interrupted) == 0 {
		t.Error("no queued URL was accounted for")
	}
	if sum.Stats.Waiting != 0 {
		t.Errorf("%d requests still waiting after the drain", sum.Stats.Waiting)
	}
}

func countReason(recs []*skiplog.Record, r skiplog.Reason) int {
	n := 0
	for _, rec := range recs {
		if rec.Reason == r {
			n++
		}
	}
	return n
}

func TestMaxPages(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 30, PageBytes: 512, LinksPerPage: 3, Seed: 4})
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithSkipLog(&skips), crawler.WithDelay(0), crawler.WithMaxPages(12), crawler.WithMaxPagesPerHost(8))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	sum := run(t, c, site.Seeds()...)
	if sum.Stats.Pages != 12 {
		t.Errorf("%d pages downloaded, want 12", sum.Stats.Pages)
	}
	for auth, as := range sum.Stats.Authorities {
		if as.Pages > 8 {
			t.Errorf("%s: %d pages, over the per-host cap of 8", auth, as.Pages)
		}
	}
	if int64(countReason(readSkips(t, &skips), skiplog.MaxPages)) != sum.Stats.Queued-12 {
		t.Errorf("every queued URL beyond the budget must be skip-logged as max-pages")
	}
}

// TestSpiderCallbacks: OnHTML follow and emit, a named callback chosen by
// the request, metadata passed along, a panicking callback counted, a
// pipeline that drops and one that transforms.
func TestSpiderCallbacks(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><base href="/shop/"></head><body>
			<a class="product" href="p1">One</a><a class="product" href="p2">Two</a>
			<a class="product" href="p1#reviews">One again</a>
			<a href="mailto:sales@example.com">mail</a><a href="javascript:void(0)">js</a>
			<a href="/boom">boom</a></body></html>`))
	})
	mux.HandleFunc("/shop/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><h1>Product ` + strings.TrimPrefix(r.URL.Path, "/shop/") + `</h1><span class="price">` +
			map[string]string{"/shop/p1": "10", "/shop/p2": "0"}[r.URL.Path] + `</span></body></html>`))
	})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><div id="bad">x</div></body></html>`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var items bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(0))
	if err != nil {
		t.Fatal(err)
	}
	c.Export(feed.NewJSONLines(&items))
	c.OnHTML("a.product", func(e *crawler.HTMLElement) {
		e.Follow(e.Attr("href"), crawler.WithCallback("product"), crawler.WithMeta("label", e.Text))
	})
	c.OnHTML("a:not(.product)", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("#bad", func(e *crawler.HTMLElement) { panic("a bug in a callback") })
	type product struct {
		Name  string `json:"name"`
		Label string `json:"label"`
		Price string `json:"price"`
		URL   string `json:"url"`
	}
	c.Handle("product").OnHTML("body", func(e *crawler.HTMLElement) {
		e.Emit(product{Name: e.ChildText("h1"), Label: e.Response.Meta("label"), Price: e.ChildText(".price"), URL: e.Response.URL.String()})
	})
	c.Pipeline(crawler.PipelineFunc(func(_ context.Context, it any) (any, error) {
		p := it.(product)
		if p.Price == "0" {
			return nil, crawler.Drop("free items are not for sale")
		}
		p.Name = strings.ToUpper(p.Name)
		return p, nil
	}))
	var mu sync.Mutex
	var seen []any
	c.OnItem(func(it any) { mu.Lock(); seen = append(seen, it); mu.Unlock() })
	sum := run(t, c, srv.URL+"/")

	var got []product
	dec := json.NewDecoder(&items)
	for dec.More() {
		var p product
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].URL < got[j].URL })
	want := []product{{Name: "PRODUCT P1", Label: "One", Price: "10", URL: srv.URL + "/shop/p1"}}
	if len(got) != 1 || got[0] != want[0] || len(seen) != 1 {
		t.Errorf("items %+v, want %+v (hooks saw %d)", got, want, len(seen))
	}
	s := sum.Stats
	if s.Pages != 4 || s.ItemsDropped != 1 || s.Items != 1 || s.CallbackErrors != 1 || s.IgnoredLinks != 2 || s.Duplicates != 1 {
		t.Errorf("stats: pages %d items %d dropped %d callback errors %d ignored %d duplicates %d",
			s.Pages, s.Items, s.ItemsDropped, s.CallbackErrors, s.IgnoredLinks, s.Duplicates)
	}
}

func TestRunTwiceIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, _ := crawler.New("HeedBot", crawler.WithDelay(0))
	run(t, c, srv.URL+"/")
	if _, err := c.Run(context.Background(), srv.URL+"/"); err == nil {
		t.Error("second Run accepted")
	}
}

// TestCookiesStayWithTheirAuthority: a redirect to another authority is a
// new request; cookies one host set are not sent to another.
func TestCookiesStayWithTheirAuthority(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if c := r.Header.Get("Cookie"); c != "" {
			leaked = append(leaked, r.URL.Path+": "+c)
		}
		if a := r.Header.Get("Authorization"); a != "" {
			leaked = append(leaked, r.URL.Path+": "+a)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>other</body></html>"))
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret", Path: "/"})
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body><a href="/go">go</a></body></html>`))
		case "/go":
			http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
		}
	}))
	defer first.Close()
	// Both servers listen on 127.0.0.1 on different ports: different
	// authorities, and the cookie jar must tell them apart by port too.
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithAllowedDomains("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	sum := run(t, c, first.URL+"/")
	if sum.Stats.Pages != 3 {
		t.Fatalf("pages %d, want 3 (/, /go, /landing)", sum.Stats.Pages)
	}
	if len(leaked) > 0 {
		t.Errorf("credentials crossed authorities: %v", leaked)
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/internal/testweb"
)

// runApp runs the command line args of an App holding spiders and returns
// the exit status, stdout and stderr.
func runApp(t *testing.T, args []string, spiders ...crawler.Spider) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	opts := []Option{WithOutput(&out, &errs)}
	for _, s := range spiders {
		opts = append(opts, WithSpider(s))
	}
	code := New("heed", opts...).Run(context.Background(), args)
	return code, out.String(), errs.String()
}

func fixtureSite(t *testing.T) *heedtest.Site {
	return heedtest.ServeDir(t, "testdata/devloop")
}

func TestFetch(t *testing.T) {
	site := fixtureSite(t)
	code, out, errs := runApp(t, []string{"fetch", "--agent", "HeedBot", site.URL + "/products/1.html"})
	if code != 0 || !strings.Contains(out, "<h1>Blue shoe</h1>") || !strings.Contains(errs, " 200 OK") || !strings.Contains(errs, "Content-Type: text/html") {
		t.Fatalf("fetch: %d\nstdout %s\nstderr %s", code, out, errs)
	}
	// Saved as a fixture, read back by heedtest with its URL.
	fx := filepath.Join(t.TempDir(), "p.html")
	if code, _, errs := runApp(t, []string{"fetch", "--agent", "HeedBot", "--fixture", fx, site.URL + "/products/1.html"}); code != 0 {
		t.Fatalf("fetch --fixture: %d %s", code, errs)
	}
	r := heedtest.MustFixture(t, fx, "")
	if r.Request.URL != site.URL+"/products/1.html" || !strings.Contains(string(r.Body), "Blue shoe") {
		t.Errorf("fixture read back: %s %q", r.Request.URL, r.Body)
	}
	// robots.txt refuses: exit 1 with the deciding line, rule and group;
	// the page is never requested.
	code, out, errs = runApp(t, []string{"fetch", "--agent", "HeedBot", site.URL + "/private/admin.html"})
	if code != 1 || out != "" || !strings.Contains(errs, "robots-disallow") || !strings.Contains(errs, "line 2: Disallow: /private/") || !strings.Contains(errs, "group: *") {
		t.Errorf("disallowed fetch: %d\nstdout %q\nstderr %s", code, out, errs)
	}
	for _, h := range site.Hits() {
		if strings.HasPrefix(h, "/private/") {
			t.Errorf("the site was asked for %s", h)
		}
	}
	if code, _, _ := runApp(t, []string{"fetch", site.URL + "/"}); code != 2 {
		t.Errorf("fetch without --agent: exit %d; want 2", code)
	}
}

func TestSelect(t *testing.T) {
	page := "testdata/devloop/index.html"
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{page, "a"}, 0, "Blue shoe\nRed shoe\nadmin\n"},
		{[]string{page, "a", "--attr", "href"}, 0, "/products/1.html\n/products/2.html\n/private/admin.html\n"},
		{[]string{page, "//a[2]", "--html"}, 0, `<a href="/products/2.html">Red shoe</a>` + "\n"},
		{[]string{page, "//title"}, 0, "Shop\n"},
		{[]string{page, "table.none"}, 1, ""},
		{[]string{page, "a[[["}, 2, ""},
	} {
		code, out, errs := runApp(t, append([]string{"select"}, tt.args...))
		if code != tt.code || out != tt.want {
			t.Errorf("select %q: %d %q (%s); want %d %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
	// Live, robots.txt checked.
	site := fixtureSite(t)
	if code, out, _ := runApp(t, []string{"select", "--agent", "HeedBot", site.URL + "/products/2.html", ".price"}); code != 0 || out != "12.50\n" {
		t.Errorf("live select: %d %q", code, out)
	}
}

// shopSpider is a user's spider, run by parse.
type shopSpider struct{}

func (shopSpider) Name() string        { return "ShopBot" }
func (shopSpider) StartURLs() []string { return nil }
func (shopSpider) Setup(c *crawler.Crawler) error {
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href"), crawler.WithCallback("product")) })
	c.Handle("product").OnHTML("h1", func(e *crawler.HTMLElement) {
		e.Emit(map[string]string{"name": e.Text, "price": e.Response.Doc().Find(".price").Text()})
	})
	return nil
}

func TestParse(t *testing.T) {
	site := fixtureSite(t)
	code, out, errs := runApp(t, []string{"parse", site.URL + "/products/2.html", "--callback", "product"}, shopSpider{})
	if code != 0 || out != `{"name":"Red shoe","price":"12.50"}`+"\n" || !strings.Contains(errs, "1 items, 0 requests") {
		t.Fatalf("parse live: %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runApp(t, []string{"parse", "testdata/devloop/index.html", "--url", "https://shop.example/"}, shopSpider{})
	if code != 0 || out != "" || !strings.Contains(errs, "request GET https://shop.example/products/1.html callback=product") ||
		!strings.Contains(errs, "0 items, 3 requests") {
		t.Fatalf("parse fixture: %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if code, _, errs := runApp(t, []string{"parse", "testdata/devloop/index.html", "--url", "https://shop.example/", "--callback", "nope"}, shopSpider{}); code != 2 {
		t.Errorf("unknown callback: %d %s", code, errs)
	}
}

// TestCrawlCache: heed crawl --cache DIR, then the same crawl again: the
// second reaches the site zero times and writes the same items.
func TestCrawlCache(t *testing.T) {
	site := startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, PageBytes: 512, LinksPerPage: 3, DisallowFraction: 0.2, Seed: 4})
	dir := t.TempDir()
	crawl := func(out string) string {
		args := append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--cache", filepath.Join(dir, "cache"),
			"--skiplog", filepath.Join(dir, out+".skips"), "--out", filepath.Join(dir, out)}, siteArgs(site)...)
		code, out, errs := runApp(t, args)
		if code != 0 {
			t.Fatalf("crawl: %d %s", code, errs)
		}
		return out + errs
	}
	crawl("first.jsonl")
	live := len(site.Hits())
	if summary := crawl("second.jsonl"); !strings.Contains(summary, "from the HTTP cache: ") {
		t.Errorf("the summary does not count the cache hits:\n%s", summary)
	}
	if n := len(site.Hits()) - live; n != 0 {
		t.Fatalf("the replayed crawl reached the site %d times", n)
	}
	first, second := itemURLs(t, filepath.Join(dir, "first.jsonl")), itemURLs(t, filepath.Join(dir, "second.jsonl"))
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("items: %d then %d", len(first), len(second))
	}
	for u := range first {
		if second[u] != 1 {
			t.Errorf("%s missing from the replay", u)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cache")); err != nil {
		t.Error(err)
	}
}

// itemURLs counts the items of a JSON Lines feed by their "url".
func itemURLs(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var it struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal([]byte(line), &it); err != nil || it.URL == "" {
			t.Fatalf("%s: line %q: %v", path, line, err)
		}
		out[it.URL]++
	}
	return out
}

// fetch, select and parse retry a failed request as crawl does, with
// crawl's --retries and --retry-wait: a page that answers 503 twice (with
// Retry-After: 0, so that the host is not paused) and then 200 is fetched
// with --retries 2, and kept at its 503 with --retries 1.
func TestDevLoopRetries(t *testing.T) {
	var mu sync.Mutex
	tries := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		tries[r.URL.Path]++
		n := tries[r.URL.Path]
		mu.Unlock()
		if n <= 2 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><h1>Blue shoe</h1><span class="price">9.90</span></html>`)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		args  []string
		retry string
		code  int
		out   string
		tries int
	}{
		{[]string{"fetch", "--agent", "HeedBot"}, "2", 0, "<h1>Blue shoe</h1>", 3},
		{[]string{"select"}, "2", 0, "Blue shoe\n", 3},
		{[]string{"parse", "--callback", "product"}, "2", 0, `{"name":"Blue shoe","price":"9.90"}`, 3},
		{[]string{"fetch", "--agent", "HeedBot"}, "1", 0, " 503 Service Unavailable", 2},
	} {
		path := fmt.Sprintf("/%s-%s", tc.args[0], tc.retry)
		args := append(append([]string{}, tc.args...), "--retries", tc.retry, "--retry-wait", "1ms", srv.URL+path)
		if tc.args[0] == "select" {
			args = append(args, "h1")
		}
		code, out, errs := runApp(t, args, shopSpider{})
		mu.Lock()
		n := tries[path]
		mu.Unlock()
		if code != tc.code || !strings.Contains(out+errs, tc.out) || n != tc.tries {
			t.Errorf("%s --retries %s: exit %d after %d requests, want %d after %d\nstdout %s\nstderr %s", tc.args[0], tc.retry, code, n, tc.code, tc.tries, out, errs)
		}
	}
	// The default is crawl's: --retries 2.
	var b strings.Builder
	New("heed", WithOutput(&b, &b)).Run(context.Background(), []string{"fetch", "--help"})
	if !strings.Contains(b.String(), "--retries int") || !strings.Contains(b.String(), "(default 2)") {
		t.Errorf("fetch --help lacks crawl's --retries:\n%s", b.String())
	}
}

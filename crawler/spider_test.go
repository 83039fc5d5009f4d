package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
)

// shop is a struct spider: listing pages name the "product" callback for
// the links they follow and pass the listing's page number along.
type shop struct {
	start    string
	failWith error

	mu    sync.Mutex
	found []string
}

func (s *shop) Name() string        { return "ShopBot" }
func (s *shop) StartURLs() []string { return []string{s.start} }
func (s *shop) Options() []crawler.Option {
	return []crawler.Option{crawler.WithDelay(time.Hour), crawler.WithMaxDepth(2)}
}

func (s *shop) Setup(c *crawler.Crawler) error {
	if s.failWith != nil {
		return s.failWith
	}
	c.OnHTML("a.product", func(e *crawler.HTMLElement) {
		e.Follow(e.Attr("href"), crawler.WithCallback("product"), crawler.WithMeta("listing", e.Response.URL.Path))
	})
	c.OnHTML("a.next", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.Handle("product").OnHTML("h1", s.parseProduct)
	return nil
}

func (s *shop) parseProduct(e *crawler.HTMLElement) {
	s.mu.Lock()
	s.found = append(s.found, e.Text+" from "+e.Response.Meta("listing"))
	s.mu.Unlock()
	e.Emit(map[string]string{"name": e.Text})
}

func shopServer() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/list/{n}", func(w http.ResponseWriter, r *http.Request) {
		n := r.PathValue("n")
		fmt.Fprintf(w, `<html><body><a class="product" href="../item/%s-a">a</a><a class="product" href="/item/%s-b">b</a>`, n, n)
		if n == "1" {
			fmt.Fprint(w, `<a class="next" href="/list/2">next</a>`)
		}
		fmt.Fprint(w, `</body></html>`)
	})
	mux.HandleFunc("/item/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><body><h1>%s</h1></body></html>`, r.PathValue("id"))
	})
	return httptest.NewServer(mux)
}

func TestRunSpider(t *testing.T) {
	srv := shopServer()
	defer srv.Close()
	s := &shop{start: srv.URL + "/list/1"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The caller's options win over the spider's (its one-hour delay).
	sum, err := crawler.RunSpider(ctx, s, crawler.WithDelay(0))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(s.found)
	want := "1-a from /list/1, 1-b from /list/1, 2-a from /list/2, 2-b from /list/2"
	if strings.Join(s.found, ", ") != want {
		t.Errorf("found %q, want %q", strings.Join(s.found, ", "), want)
	}
	// WithMaxDepth(2) from the spider's options: /list/2 is depth 1, its
	// products depth 2; nothing deeper exists, so all are fetched.
	if sum.Stats.Items != 4 || sum.Stats.Pages != 6 {
		t.Errorf("items %d pages %d", sum.Stats.Items, sum.Stats.Pages)
	}
}

func TestNewSpiderErrors(t *testing.T) {
	if _, err := crawler.NewSpider(nil); err == nil {
		t.Error("nil spider accepted")
	}
	boom := errors.New("no catalogue configured")
	_, err := crawler.NewSpider(&shop{failWith: boom})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "ShopBot") {
		t.Errorf("setup error: %v", err)
	}
	if _, err := crawler.RunSpider(context.Background(), &shop{}, crawler.WithUserAgent("OtherBot/1.0")); err == nil {
		t.Error("a User-Agent without the spider's name accepted")
	}
	c, err := crawler.NewSpider(&shop{})
	if err != nil || c.Agent() != "ShopBot" || c.Handle("product").Name() != "product" {
		t.Errorf("NewSpider: %v", err)
	}
}

// TestOnError: final responses that are not 2xx reach the OnError
// callbacks of the handler their request named, with a *StatusError;
// they may emit items.
func TestOnError(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<a href="/gone">gone</a> <a class="p" href="/broken">broken</a> <a href="/moved">moved</a>`)
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", http.StatusInternalServerError) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/gone", http.StatusMovedPermanently)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithRetries(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a:not(.p)", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("a.p", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href"), crawler.WithCallback("product")) })
	var mu sync.Mutex
	var got []string
	record := func(who string) func(*crawler.Response, error) {
		return func(r *crawler.Response, err error) {
			var se *crawler.StatusError
			if !errors.As(err, &se) || se.StatusCode != r.StatusCode {
				t.Errorf("%s: err %v", r.URL, err)
			}
			mu.Lock()
			got = append(got, fmt.Sprintf("%s %s %d", who, r.URL.Path, r.StatusCode))
			mu.Unlock()
			r.Emit(map[string]any{"url": r.URL.Path, "status": r.StatusCode})
		}
	}
	c.OnError(record("default"))
	c.Handle("product").OnError(record("product"))
	sum := run(t, c, srv.URL+"/")
	sort.Strings(got)
	// /gone is reached twice (a link and the redirect) but fetched once.
	if want := "default /gone 410, product /broken 500"; strings.Join(got, ", ") != want {
		t.Errorf("OnError saw %q, want %q", strings.Join(got, ", "), want)
	}
	if sum.Stats.Items != 2 {
		t.Errorf("%d items from error callbacks", sum.Stats.Items)
	}
	if msg := (&crawler.StatusError{URL: "u", StatusCode: 404}).Error(); msg != "u: HTTP status 404 Not Found" {
		t.Errorf("message %q", msg)
	}
}

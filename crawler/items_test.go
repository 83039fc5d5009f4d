package crawler_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

type product struct {
	SKU   string `json:"sku"`
	Price int    `json:"price"`
	URL   string `json:"url,omitempty"`
}

type review struct {
	SKU   string `json:"sku"`
	Stars int    `json:"stars"`
}

// failingExporter fails for one SKU and records the rest.
type failingExporter struct {
	failSKU string
	got     []any
	closed  bool
}

func (f *failingExporter) Export(it any) error {
	if p, ok := it.(product); ok && p.SKU == f.failSKU {
		return errors.New("disk full")
	}
	f.got = append(f.got, it)
	return nil
}

func (f *failingExporter) Close() error { f.closed = true; return nil }

// TestPipelineOutcomes: every way an item can end — exported, dropped with
// a reason, failed in a stage, panicked in a stage, failed in an exporter
// — is counted, logged to the hooks, and none stops the crawl.
func TestPipelineOutcomes(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body>
			<div class="p" data-sku="ok1" data-price="10"></div>
			<div class="p" data-sku="ok1" data-price="10"></div>
			<div class="p" data-sku="free" data-price="0"></div>
			<div class="p" data-sku="bad" data-price="x"></div>
			<div class="p" data-sku="boom" data-price="5"></div>
			<div class="p" data-sku="nodisk" data-price="7"></div>
			<div class="p" data-sku="ok2" data-price="20"></div>
			<div class="r" data-sku="ok1" data-stars="4"></div>
			<a href="/next">next</a></body></html>`)
	})
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><div class="p" data-sku="ok3" data-price="30"></div></body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c, err := crawler.New("HeedBot", crawler.WithDelay(0))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	c.OnHTML("div.p", func(e *crawler.HTMLElement) {
		var price int
		if _, err := fmt.Sscan(e.Attr("data-price"), &price); err != nil {
			price = -1
		}
		e.Emit(product{SKU: e.Attr("data-sku"), Price: price})
	})
	c.OnHTML("div.r", func(e *crawler.HTMLElement) {
		var stars int
		fmt.Sscan(e.Attr("data-stars"), &stars)
		e.Emit(review{SKU: e.Attr("data-sku"), Stars: stars})
	})
	var sources sync.Map
	c.Pipeline(
		crawler.Stage(func(ctx context.Context, p product) (product, error) {
			switch {
			case p.Price < 0:
				return p, fmt.Errorf("unparseable price for %s", p.SKU)
			case p.Price == 0:
				return p, crawler.Drop("no price")
			case p.SKU == "boom":
				panic("a bug in a stage")
			}
			src := crawler.ItemSource(ctx)
			p.URL = src.URL.String()
			sources.Store(p.SKU, src.Request.Depth)
			return p, nil
		}),
		crawler.Dedup(func(p product) string { return p.SKU }),
		// A stage may change an item's type.
		crawler.Stage(func(_ context.Context, r review) (review, error) { r.Stars *= 10; return r, nil }),
	)
	exp := &failingExporter{failSKU: "nodisk"}
	c.Export(exp)
	var mu sync.Mutex
	var dropped []string
	c.OnItemDropped(func(it any, err error) {
		mu.Lock()
		defer mu.Unlock()
		var d *crawler.DropError
		if errors.As(err, &d) {
			dropped = append(dropped, "drop:"+d.Reason)
		} else {
			dropped = append(dropped, "error:"+err.Error())
		}
	})
	sum := run(t, c, srv.URL+"/")

	var skus []string
	for _, it := range exp.got {
		switch v := it.(type) {
		case product:
			skus = append(skus, v.SKU)
			if v.URL == "" {
				t.Errorf("%s: the source URL was not filled in", v.SKU)
			}
		case review:
			if v.Stars != 40 {
				t.Errorf("review stars %d, want 40", v.Stars)
			}
			skus = append(skus, "review")
		}
	}
	sort.Strings(skus)
	if strings.Join(skus, " ") != "ok1 ok2 ok3 review" {
		t.Errorf("exported %v", skus)
	}
	if d, _ := sources.Load("ok3"); d != 1 {
		t.Errorf("ok3 came from depth %v, want 1", d)
	}
	sort.Strings(dropped)
	want := []string{"drop:duplicate", "drop:no price", "error:export: disk full", "error:pipeline panicked: a bug in a stage", "error:unparseable price for bad"}
	if fmt.Sprint(dropped) != fmt.Sprint(want) {
		t.Errorf("dropped hooks %q\nwant %q", dropped, want)
	}
	s := sum.Stats
	if s.Items != 4 || s.ItemsDropped != 2 || s.ItemErrors != 3 || s.Dropped["no price"] != 1 || s.Dropped["duplicate"] != 1 || s.Pages != 2 {
		t.Errorf("stats: items %d dropped %d %v errors %d pages %d", s.Items, s.ItemsDropped, s.Dropped, s.ItemErrors, s.Pages)
	}
	if !exp.closed {
		t.Error("exporter not closed")
	}
	var buf bytes.Buffer
	s.Format(&buf)
	if !strings.Contains(buf.String(), "items: 4 exported, 2 dropped, 3 errors (dropped: duplicate=1, no price=1)") {
		t.Errorf("summary:\n%s", buf.String())
	}
}

func TestItemSourceOutsidePipeline(t *testing.T) {
	if crawler.ItemSource(context.Background()) != nil {
		t.Error("a source outside a pipeline")
	}
	p, err := crawler.Stage(func(_ context.Context, n int) (int, error) { return n + 1, nil }).Process(context.Background(), "not an int")
	if p != "not an int" || err != nil {
		t.Errorf("Stage touched another type: %v, %v", p, err)
	}
}

// TestStageContextIsTheRuns: every stage gets a context derived from
// Run's (it carries Run's values, and it is cancelled once the run is
// over) with the item's page in it.
func TestStageContextIsTheRuns(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 4, PageBytes: 256, LinksPerPage: 2, Seed: 3})
	c, err := crawler.New("HeedBot", siteOptions(site)...)
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	c.OnResponse(func(r *crawler.Response) { r.Emit(r.Request.URL) })
	var (
		mu   sync.Mutex
		ctxs []context.Context
		bad  []string
	)
	c.Pipeline(crawler.Stage(func(ctx context.Context, url string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ctxs = append(ctxs, ctx)
		if v, _ := ctx.Value(runKey{}).(string); v != "run" {
			bad = append(bad, url+": the stage's context does not carry Run's value")
		}
		if src := crawler.ItemSource(ctx); src == nil || src.Request.URL != url {
			bad = append(bad, url+": the stage's context does not carry the item's page")
		}
		return url, nil
	}))
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), runKey{}, "run"))
	defer cancel()
	sum, err := c.Run(ctx, site.Seeds()...)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bad {
		t.Error(b)
	}
	if int64(len(ctxs)) != sum.Stats.Items || sum.Stats.Items < 4 {
		t.Fatalf("the stage saw %d items of %d exported; want every one, at least 4", len(ctxs), sum.Stats.Items)
	}
	for i, sc := range ctxs {
		if !errors.Is(sc.Err(), context.Canceled) {
			t.Fatalf("item %d: the stage's context after Run returned: %v, want canceled", i, sc.Err())
		}
	}
}

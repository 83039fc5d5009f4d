package heedtest_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/heedtest"
)

type product struct{ Name, Price string }

// shop is a spider written as a user would: its callbacks are what the
// fixtures test.
type shop struct{ start string }

func (s *shop) Name() string        { return "ShopBot" }
func (s *shop) StartURLs() []string { return []string{s.start} }
func (s *shop) Setup(c *crawler.Crawler) error {
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href"), crawler.WithCallback("product")) })
	p := c.Handle("product")
	p.OnHTML("body", func(e *crawler.HTMLElement) {
		e.Emit(product{Name: e.ChildText("h1"), Price: e.ChildText(".price")})
	})
	p.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	return nil
}

func TestParseOnAFixture(t *testing.T) {
	resp := heedtest.MustFixture(t, "testdata/product.html", "") // the URL comes from the sidecar
	res := heedtest.MustParse(t, &shop{}, "product", resp)
	if len(res.Items) != 1 || res.Items[0] != (product{"Blue shoe", "10.00"}) {
		t.Fatalf("items %+v", res.Items)
	}
	if len(res.Requests) != 1 || res.Requests[0].URL != "https://shop.example/products/2.html" ||
		res.Requests[0].Callback != "product" || res.Requests[0].Referrer != "https://shop.example/products/1.html" {
		t.Fatalf("requests %+v", res.Requests[0])
	}
	// From a string, on the default handler.
	res = heedtest.MustParse(t, &shop{}, "", heedtest.NewResponse("http://a.example/", `<html><a href="/x">x</a></html>`))
	if len(res.Items) != 0 || len(res.Requests) != 1 || res.Requests[0].URL != "http://a.example/x" || res.Requests[0].Callback != "product" {
		t.Fatalf("default handler: %+v %+v", res.Items, res.Requests)
	}
	if _, err := heedtest.Parse(&shop{}, "nope", resp); err == nil {
		t.Error("an unknown callback was accepted")
	}
	if _, err := heedtest.Fixture("testdata/site/index.html", ""); err == nil {
		t.Error("a fixture without URL nor sidecar was accepted")
	}
}

func TestWriteFixtureRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.html")
	m := heedtest.Meta{URL: "http://a.example/p", Status: 404}
	if err := heedtest.WriteFixture(path, m, []byte("<html>gone</html>")); err != nil {
		t.Fatal(err)
	}
	r := heedtest.MustFixture(t, path, "")
	if r.Request.URL != m.URL || r.Status != 404 || string(r.Body) != "<html>gone</html>" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("fixture read back as %+v", r)
	}
}

// TestServeDir crawls a directory of fixtures as a site: robots.txt is
// obeyed, every page is parsed, and the site saw each page once.
func TestServeDir(t *testing.T) {
	site := heedtest.ServeDir(t, "testdata/site")
	var skips bytes.Buffer
	c, err := crawler.NewSpider(&shop{start: site.URL + "/"}, crawler.WithDelay(0), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	c.OnItem(func(it any) { items = append(items, it.(product).Name) })
	sum, err := c.Run(context.Background(), site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(items)
	if !slices.Equal(items, []string{"Blue shoe", "Red shoe"}) {
		t.Errorf("items %q", items)
	}
	hits := site.Hits()
	slices.Sort(hits)
	if want := []string{"/", "/products/1.html", "/products/2.html", "/robots.txt"}; !slices.Equal(hits, want) {
		t.Errorf("site hits %q; want %q", hits, want)
	}
	if sum.Skipped.Total != 1 || !strings.Contains(skips.String(), "/private/admin.html") {
		t.Errorf("skip log %s", skips.String())
	}
}

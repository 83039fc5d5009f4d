package crawler_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
)

// bookshop serves a home page linking to two books and a private page
// that robots.txt disallows.
func bookshop() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><a href="/book/1">one</a> <a href="book/2">two</a> <a href="/private/admin">admin</a></body></html>`)
	})
	mux.HandleFunc("/book/{n}", func(w http.ResponseWriter, r *http.Request) {
		price := map[string]string{"1": "12.50", "2": ""}[r.PathValue("n")]
		fmt.Fprintf(w, `<html><body><h1>Book %s</h1><span class="price">%s</span></body></html>`, r.PathValue("n"), price)
	})
	return httptest.NewServer(mux)
}

// A crawler follows links with OnHTML and emits items; robots.txt is
// obeyed, and what was not fetched is counted by reason.
func Example() {
	site := bookshop()
	defer site.Close()

	c, err := crawler.New("ExampleBot", crawler.WithDelay(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	var titles []string
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("h1", func(e *crawler.HTMLElement) {
		mu.Lock()
		titles = append(titles, e.Text)
		mu.Unlock()
	})
	sum, err := c.Run(context.Background(), site.URL+"/")
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(titles)
	fmt.Println(titles)
	fmt.Println("pages:", sum.Stats.Pages, "skipped by robots.txt:", sum.Skipped.ByReason["robots-disallow"])
	// Output:
	// [Book 1 Book 2]
	// pages: 3 skipped by robots.txt: 1
}

// Book is the item of the examples.
type Book struct {
	Title string  `json:"title"`
	Price float64 `json:"price"`
	URL   string  `json:"url"`
}

// Items pass pipeline stages in order: here one drops books without a
// price and one records the page each book came from; a JSON Lines
// exporter writes what passes.
func ExampleCrawler_Pipeline() {
	site := bookshop()
	defer site.Close()

	c, _ := crawler.New("ExampleBot", crawler.WithDelay(10*time.Millisecond))
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("body:has(h1)", func(e *crawler.HTMLElement) {
		var price float64
		fmt.Sscan(e.ChildText(".price"), &price)
		e.Emit(Book{Title: e.ChildText("h1"), Price: price})
	})
	c.Pipeline(
		crawler.Stage(func(_ context.Context, b Book) (Book, error) {
			if b.Price == 0 {
				return b, crawler.Drop("no price")
			}
			return b, nil
		}),
		crawler.Stage(func(ctx context.Context, b Book) (Book, error) {
			b.URL = crawler.ItemSource(ctx).URL.Path
			return b, nil
		}),
	)
	c.Export(feed.NewJSONLines(os.Stdout))
	c.OnItemDropped(func(item any, err error) { fmt.Println(item.(Book).Title, "->", err) })
	sum, _ := c.Run(context.Background(), site.URL+"/")
	fmt.Println("exported:", sum.Stats.Items, "dropped:", sum.Stats.Dropped)
	// Unordered output:
	// {"title":"Book 1","price":12.5,"url":"/book/1"}
	// Book 2 -> item dropped: no price
	// exported: 1 dropped: map[no price:1]
}

// bookSpider is a struct spider: its name is its robots.txt product token.
type bookSpider struct{ start string }

func (s *bookSpider) Name() string        { return "BookBot" }
func (s *bookSpider) StartURLs() []string { return []string{s.start} }

func (s *bookSpider) Setup(c *crawler.Crawler) error {
	c.OnHTML(`a[href^="/book/"], a[href^="book/"]`, func(e *crawler.HTMLElement) {
		e.Follow(e.Attr("href"), crawler.WithCallback("book"), crawler.WithMeta("label", e.Text))
	})
	c.Handle("book").OnHTML("h1", s.parseBook)
	return nil
}

func (s *bookSpider) parseBook(e *crawler.HTMLElement) {
	e.Emit(map[string]string{"title": e.Text, "label": e.Response.Meta("label")})
}

// A spider is a type; RunSpider makes its crawler and runs it. The
// "book" callback parses the pages that the home page's links name it
// for, with the link's text passed along as meta.
func ExampleRunSpider() {
	site := bookshop()
	defer site.Close()

	var mu sync.Mutex
	var lines []string
	c, err := crawler.NewSpider(&bookSpider{start: site.URL + "/"}, crawler.WithDelay(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	c.OnItem(func(item any) {
		m := item.(map[string]string)
		mu.Lock()
		lines = append(lines, m["label"]+": "+m["title"])
		mu.Unlock()
	})
	if _, err := c.Run(context.Background(), site.URL+"/"); err != nil {
		log.Fatal(err)
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// one: Book 1
	// two: Book 2
}

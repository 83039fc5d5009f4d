// Command catalogue is heed's scraper example: a struct spider that walks
// a product catalogue's listing pages by their rel="next" links, parses
// each product page into a Product item, and runs the items through
// pipeline stages that validate, deduplicate and enrich them before a
// feed exporter writes them (JSON Lines, JSON or CSV, by the file name).
//
// Without -url it starts a small catalogue on loopback and crawls that, so
// it runs anywhere: go run ./examples/catalogue -out products.csv
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
)

// Product is the item the spider emits for each product page.
type Product struct {
	SKU      string   `json:"sku"`
	Name     string   `json:"name"`
	Price    float64  `json:"price"`
	Currency string   `json:"currency"`
	Tags     []string `json:"tags"`
	URL      string   `json:"url"`
	// Listing is the catalogue page that linked to the product, passed
	// along in the request's meta.
	Listing string `json:"listing"`
}

// catalogueSpider crawls a catalogue from its first listing page.
type catalogueSpider struct {
	start string
}

func (s *catalogueSpider) Name() string        { return "CatalogueBot" }
func (s *catalogueSpider) StartURLs() []string { return []string{s.start} }

// Options keep the crawl on the catalogue's own pages.
func (s *catalogueSpider) Options() []crawler.Option {
	return []crawler.Option{crawler.WithMaxDepth(10)}
}

// Setup registers the callbacks: listing pages follow products (parsed by
// the "product" callback) and the next listing page.
func (s *catalogueSpider) Setup(c *crawler.Crawler) error {
	c.OnHTML("ul.products a.product", func(e *crawler.HTMLElement) {
		listing := e.Response.URL.Query().Get("page")
		if listing == "" {
			listing = "1"
		}
		e.Follow(e.Attr("href"), crawler.WithCallback("product"), crawler.WithMeta("listing", listing))
	})
	c.OnHTML(`a[rel="next"]`, func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.Handle("product").OnHTML("article.product", s.parseProduct)
	c.Handle("product").OnHTML(".related a", func(e *crawler.HTMLElement) {
		// Same callback and listing as the page that links it.
		e.Follow(e.Attr("href"), crawler.WithMeta("listing", e.Response.Meta("listing")))
	})
	c.Pipeline(
		crawler.Stage(validPrice),
		crawler.Dedup(func(p Product) string { return p.SKU }),
		crawler.Stage(withSource),
	)
	return nil
}

// parseProduct turns a product page into a Product. Prices are parsed in
// a pipeline stage, not here, so that a bad price is dropped with a
// reason instead of lost in a callback.
func (s *catalogueSpider) parseProduct(e *crawler.HTMLElement) {
	var tags []string
	e.ForEach("ul.tags li", func(_ int, li *crawler.HTMLElement) { tags = append(tags, li.Text) })
	price := strings.TrimSpace(e.ChildText(".price"))
	p := Product{SKU: e.Attr("data-sku"), Name: e.ChildText("h1"), Tags: tags, Currency: price}
	e.Emit(p)
}

// validPrice parses the price text (kept in Currency by the callback) into
// Price and Currency, and drops products that show none.
func validPrice(_ context.Context, p Product) (Product, error) {
	text := p.Currency
	if text == "" {
		return p, crawler.Drop("no price")
	}
	cur, amount := "", text
	if strings.HasPrefix(text, "€") {
		cur, amount = "EUR", strings.TrimPrefix(text, "€")
	}
	v, err := strconv.ParseFloat(amount, 64)
	if err != nil || cur == "" {
		return p, crawler.Drop("unreadable price")
	}
	p.Price, p.Currency = v, cur
	return p, nil
}

// withSource records where the item came from.
func withSource(ctx context.Context, p Product) (Product, error) {
	src := crawler.ItemSource(ctx)
	p.URL = src.URL.String()
	p.Listing = src.Meta("listing")
	return p, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("catalogue", flag.ContinueOnError)
	fl.SetOutput(stdout)
	start := fl.String("url", "", "first listing page (default: a catalogue started on loopback)")
	out := fl.String("out", "products.jsonl", "feed file: .jsonl, .json or .csv, optionally .gz")
	skips := fl.String("skiplog", "", "write the skip log to this file")
	delay := fl.Duration("delay", 50*time.Millisecond, "least time between requests to the catalogue")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *start == "" {
		site := newCatalogue()
		defer site.Close()
		*start = site.URL + "/catalogue"
	}
	feed, err := feed.Open(*out)
	if err != nil {
		return err
	}
	defer feed.Close()
	opts := []crawler.Option{crawler.WithDelay(*delay)}
	if *skips != "" {
		f, err := os.Create(*skips)
		if err != nil {
			return err
		}
		defer f.Close()
		opts = append(opts, crawler.WithSkipLog(f))
	}
	spider := &catalogueSpider{start: *start}
	c, err := crawler.NewSpider(spider, opts...)
	if err != nil {
		return err
	}
	c.Export(feed)
	c.OnItemDropped(func(item any, err error) {
		if p, ok := item.(Product); ok {
			fmt.Fprintf(stdout, "dropped %s (%s): %v\n", p.SKU, p.Name, err)
		}
	})
	sum, err := c.Run(ctx, spider.StartURLs()...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d products written to %s\n", sum.Stats.Items, *out)
	sum.Stats.Format(stdout)
	sum.Skipped.Format(stdout)
	if sum.Interrupted {
		return errors.New("interrupted")
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalogue:", err)
		os.Exit(1)
	}
}

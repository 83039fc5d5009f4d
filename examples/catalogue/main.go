// Command catalogue is heed's scraper example, and the normal way to ship
// a spider: a struct spider that walks a product catalogue's listing
// pages by their rel="next" links, parses each product page into a
// Product item, and runs the items through pipeline stages that validate,
// deduplicate and enrich them, in a program whose main gives it heed's
// whole command line (package cli). Its binary is `scrapy crawl NAME` for
// this one spider:
//
//	catalogue crawl https://shop.example/catalogue --out products.csv --state job1
//	catalogue status --state job1
//	catalogue robots check https://shop.example/cart/add
//
// Its own command, demo, starts a small catalogue on loopback and crawls
// that, so it runs anywhere: go run ./examples/catalogue demo --out products.csv
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/cli"
	"github.com/heedcrawl/heed/crawler"
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

// catalogueSpider crawls a catalogue from its first listing page, given
// on the command line.
type catalogueSpider struct {
	notes io.Writer // dropped products are reported here
}

func (s *catalogueSpider) Name() string        { return "CatalogueBot" }
func (s *catalogueSpider) StartURLs() []string { return nil }

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
	c.OnItemDropped(func(item any, err error) {
		if p, ok := item.(Product); ok {
			fmt.Fprintf(s.notes, "dropped %s (%s): %v\n", p.SKU, p.Name, err)
		}
	})
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

// demoCommand starts the catalogue of site.go on loopback and crawls it
// with crawl's flags: the program runs anywhere.
func demoCommand(a *cli.App) *cobra.Command {
	return &cobra.Command{
		Use:                "demo [crawl flags]",
		Short:              "Scrape a small catalogue started on loopback (no network needed)",
		DisableFlagParsing: true, // the flags are crawl's
		RunE: func(cmd *cobra.Command, args []string) error {
			site := newCatalogue()
			defer site.Close()
			defaults := []string{"--out", "products.jsonl", "--delay", "50ms"} // the given flags come later and win
			return a.Crawl(cmd.Context(), append(append(defaults, args...), site.URL+"/catalogue"))
		},
	}
}

// newApp is the program's command line: heed's, wearing the spider.
func newApp(stdout, stderr io.Writer) *cli.App {
	return cli.New("catalogue",
		cli.WithSpider(&catalogueSpider{notes: stdout}),
		cli.WithCommand(demoCommand),
		cli.WithOutput(stdout, stderr))
}

func main() { newApp(os.Stdout, os.Stderr).Main() }

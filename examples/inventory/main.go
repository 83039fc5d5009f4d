// Command inventory is heed's sitemap example: it lists every URL a site's
// sitemaps declare, with heed's robots.txt verdict for each, without
// fetching a single page. It is what a site owner runs to find pages the
// sitemaps advertise but robots.txt forbids, and what a crawl plan starts
// from.
//
// inventory.New reads robots.txt, follows its Sitemap lines (or
// /sitemap.xml) through indexes, gzip and text sitemaps, paced like a
// crawl; every row goes to a feed exporter, here CSV in the order of
// inventory.Columns, and the summary names the listed URLs
// robots.txt disallows with the deciding rule.
//
// Without sites it starts heed's test site and inventories its sitemap
// host: go run ./examples/inventory -out inventory.csv
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/inventory"
)

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("inventory", flag.ContinueOnError)
	fl.SetOutput(stdout)
	agent := fl.String("agent", "InventoryBot", "product token whose robots.txt verdicts the inventory gives")
	out := fl.String("out", "inventory.csv", "feed of rows: .csv, .jsonl or .json, optionally .gz")
	delay := fl.Duration("delay", time.Second, "least time between two requests to one host")
	if err := fl.Parse(args); err != nil {
		return err
	}
	sites := fl.Args()
	var opts []crawler.Option
	if len(sites) == 0 {
		site, err := heedtest.StartScenario()
		if err != nil {
			return err
		}
		defer site.Close()
		sites = []string{site.HostURL(heedtest.HostMaps, "/")}
		opts = append(opts, crawler.WithTransport(site.Transport()))
	}
	opts = append(opts, crawler.WithDelay(*delay))

	// CSV columns fixed to heed's inventory format, so an empty inventory
	// still has its header.
	feed, err := feed.Open(*out, feed.WithExporter(func(f feed.Format, w io.Writer) (crawler.Exporter, error) {
		if f == feed.CSVFormat {
			return feed.NewCSV(w, feed.CSVColumns(inventory.Columns...)), nil
		}
		return feed.NewExporter(f, w)
	}))
	if err != nil {
		return err
	}
	defer feed.Close()

	inv, err := inventory.New(*agent, opts...)
	if err != nil {
		return err
	}
	allowed, disallowed := 0, 0
	sum, err := inv.Run(ctx, sites, func(row inventory.Row) error {
		if row.Allowed {
			allowed++
		} else {
			disallowed++ // the summary lists them with their rule
		}
		return feed.Export(row)
	})
	if cerr := feed.Close(); err == nil {
		err = cerr
	}
	if sum != nil {
		fmt.Fprintf(stdout, "%d URLs listed: %d allowed, %d disallowed for %s; rows in %s\n", allowed+disallowed, allowed, disallowed, *agent, *out)
		sum.Format(stdout)
	}
	return err
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "inventory:", err)
		os.Exit(1)
	}
}

// Command collector is heed's long-running data-collection example: a
// crawl of several hosts that may run for hours, paced per host by a floor
// delay (a larger robots.txt Crawl-delay wins), writing one observation
// per page as JSON Lines and every URL it did not fetch to a skip log,
// printing a statistics line now and then, and stopping gracefully on
// Ctrl-C or SIGTERM: requests in flight finish, every URL still queued is
// written to the skip log as interrupted, and the output is complete.
//
// Without URLs it starts heed's generated test site (three hosts on
// loopback, some paths disallowed by robots.txt) and collects from that:
//
//	go run ./examples/collector -delay 100ms -stats 1s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// Observation is what the job records about each HTML page.
type Observation struct {
	URL       string    `json:"url"`
	Authority string    `json:"authority"`
	Title     string    `json:"title"`
	Words     int       `json:"words"`
	Links     int       `json:"links"`
	Depth     int       `json:"depth"`
	FetchedAt time.Time `json:"fetched_at"`
}

type options struct {
	agent    string
	out      string
	skiplog  string
	delay    time.Duration
	every    time.Duration
	maxPages int
	depth    int
	seeds    []string
}

func parse(args []string, stdout io.Writer) (*options, error) {
	var o options
	fl := flag.NewFlagSet("collector", flag.ContinueOnError)
	fl.SetOutput(stdout)
	fl.StringVar(&o.agent, "agent", "CollectorBot", "product token robots.txt rules are written for")
	fl.StringVar(&o.out, "out", "observations.jsonl", "observations feed (.jsonl, .json or .csv, optionally .gz)")
	fl.StringVar(&o.skiplog, "skiplog", "skipped.jsonl", "skip log: every URL not fetched, and why")
	fl.DurationVar(&o.delay, "delay", time.Second, "least time between two requests to one host")
	fl.DurationVar(&o.every, "stats", 10*time.Second, "print a statistics line this often (0: never)")
	fl.IntVar(&o.maxPages, "max-pages", 0, "stop after this many pages (0: when there is nothing left)")
	fl.IntVar(&o.depth, "depth", 0, "follow links at most this deep (0: no limit)")
	if err := fl.Parse(args); err != nil {
		return nil, err
	}
	o.seeds = fl.Args()
	return &o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parse(args, stdout)
	if err != nil {
		return err
	}
	opts := []crawler.Option{
		crawler.WithDelay(o.delay),
		crawler.WithWorkers(8),
		crawler.WithMaxPages(o.maxPages),
		crawler.WithMaxDepth(o.depth),
		crawler.WithLogger(slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	}
	if len(o.seeds) == 0 {
		site, err := testweb.StartGenerated(testweb.Generated{Hosts: 3, PagesPerHost: 40, PageBytes: 1500, LinksPerPage: 4,
			CrossHostFraction: 0.2, DisallowFraction: 0.15, Seed: 42})
		if err != nil {
			return err
		}
		defer site.Close()
		o.seeds = site.Seeds()
		opts = append(opts, crawler.WithAllowedDomains(site.Domains()...))
	}
	skipFile, err := os.Create(o.skiplog)
	if err != nil {
		return err
	}
	defer skipFile.Close()
	feed, err := feed.Open(o.out)
	if err != nil {
		return err
	}
	defer feed.Close()
	opts = append(opts, crawler.WithSkipLog(skipFile))

	c, err := crawler.New(o.agent, opts...)
	if err != nil {
		return err
	}
	c.Export(feed)
	c.FollowLinks()
	c.OnHTML("html", func(e *crawler.HTMLElement) {
		e.Emit(Observation{
			URL:       e.Response.URL.String(),
			Authority: e.Response.Request.Authority(),
			Title:     strings.TrimSpace(e.ChildText("title")),
			Words:     len(strings.Fields(e.ChildText("body"))),
			Links:     len(e.ChildAttrs("a[href]", "href")),
			Depth:     e.Response.Request.Depth,
			FetchedAt: time.Now().UTC(),
		})
	})
	var mu sync.Mutex
	firstSkip := map[skiplog.Reason]bool{}
	c.OnSkip(func(r *skiplog.Record) {
		mu.Lock()
		defer mu.Unlock()
		if !firstSkip[r.Reason] { // one example of each reason; the skip log has them all
			firstSkip[r.Reason] = true
			fmt.Fprintf(stdout, "first %s: %s %s\n", r.Reason, r.URL, evidence(r))
		}
	})
	c.OnStart(func(c *crawler.Crawler) {
		fmt.Fprintf(stdout, "collecting from %d seeds as %s, at most one request per host every %s\n", len(o.seeds), c.Agent(), o.delay)
	})
	stop := printStats(stdout, &mu, c.Stats(), o.every)
	sum, err := c.Run(ctx, o.seeds...)
	stop()
	if err != nil {
		return err
	}
	if sum.Interrupted {
		fmt.Fprintf(stdout, "stopped: %d URLs still queued are in %s as interrupted\n", sum.Skipped.ByReason[skiplog.Interrupted], o.skiplog)
	}
	fmt.Fprintf(stdout, "%d observations in %s\n", sum.Stats.Items, o.out)
	sum.Stats.Format(stdout)
	sum.Skipped.Format(stdout)
	return nil
}

// evidence is the part of a skip record that says why.
func evidence(r *skiplog.Record) string {
	if r.Robots != nil && r.Robots.Rule != "" {
		return fmt.Sprintf("(robots.txt line %d: %s)", r.Robots.Line, r.Robots.Rule)
	}
	if r.Detail != "" {
		return "(" + r.Detail + ")"
	}
	return ""
}

// printStats prints a statistics line every interval until stopped.
func printStats(w io.Writer, mu *sync.Mutex, stats *crawler.Stats, every time.Duration) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				fmt.Fprintln(w, "stats:", stats.Snapshot().Line())
				mu.Unlock()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "collector:", err)
		os.Exit(1)
	}
}

// Command collector is heed's long-running data-collection example, and a
// spider program wearing heed's whole command line: a crawl of several
// hosts that may run for hours, paced per host, writing one Observation
// per page to a feed and every URL it did not fetch to a skip log.
//
// The spider is the only code here; package cli gives the program
// `collector crawl` with every flag of `heed crawl` (--state to pause and
// resume, --metrics, --stats-interval, --config, --redis, the progress
// line, the summary and the exit statuses), and `status`, `robots`,
// `inventory` and `skiplog`. One command of its own, `demo`, crawls
// heed's generated test site on loopback:
//
//	go run ./examples/collector demo --stats-interval 1s
//	go run ./examples/collector crawl https://example.com/ --state job1 --out observations.jsonl
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/cli"
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/heedtest"
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

// collector follows every link in scope and observes every HTML page.
type collector struct {
	notes io.Writer // the first skip of each reason is noted here
}

func (s *collector) Name() string        { return "CollectorBot" }
func (s *collector) StartURLs() []string { return nil }

// Options are the job's own settings; flags given on the command line win.
func (s *collector) Options() []crawler.Option {
	return []crawler.Option{crawler.WithWorkers(8)}
}

func (s *collector) Setup(c *crawler.Crawler) error {
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
	first := map[skiplog.Reason]bool{}
	c.OnSkip(func(r *skiplog.Record) {
		mu.Lock()
		defer mu.Unlock()
		if !first[r.Reason] { // one example of each reason; the skip log has them all
			first[r.Reason] = true
			fmt.Fprintf(s.notes, "first %s: %s %s\n", r.Reason, r.URL, evidence(r))
		}
	})
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

// demoCommand crawls heed's generated site (three hosts on loopback, 40
// pages each, some paths disallowed by robots.txt) with crawl's flags.
func demoCommand(a *cli.App) *cobra.Command {
	return &cobra.Command{
		Use:                "demo [crawl flags]",
		Short:              "Collect from heed's generated test site on loopback (no network needed)",
		DisableFlagParsing: true, // the flags are crawl's
		RunE: func(cmd *cobra.Command, args []string) error {
			site, err := heedtest.StartGenerated(heedtest.Generated{Hosts: 3, PagesPerHost: 40, PageBytes: 1500,
				LinksPerPage: 4, CrossHostFraction: 0.2, DisallowFraction: 0.15, Seed: 42})
			if err != nil {
				return err
			}
			defer site.Close()
			defaults := []string{"--out", "observations.jsonl", "--delay", "100ms"} // the given flags come later and win
			return a.Crawl(cmd.Context(), append(append(defaults, args...), site.CrawlArgs()...))
		},
	}
}

// newApp is the program's command line, writing to stdout and stderr.
func newApp(stdout, stderr io.Writer) *cli.App {
	return cli.New("collector",
		cli.WithSpider(&collector{notes: stderr}),
		cli.WithCommand(demoCommand),
		cli.WithOutput(stdout, stderr))
}

func main() { newApp(os.Stdout, os.Stderr).Main() }

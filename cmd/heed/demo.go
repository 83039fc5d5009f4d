package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

func init() { commands = append(commands, demoCommand) }

func demoCommand(stdout, stderr io.Writer) *cobra.Command {
	var dir string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Crawl heed's built-in local test site and show what was fetched and skipped",
		Long: `Start heed's test site on loopback (a dozen hosts on 127.0.0.x, each with
its own robots.txt: rules, a named group, Crawl-delay, 404, 403, 500, 503 then
200, a timeout, redirect chains, a 600 KiB file, sitemaps) and crawl it as
HeedBot. No network is needed. The summary shows pages fetched and URLs
skipped by reason; the skip log says, for every skipped URL, which robots.txt
line and rule excluded it.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The slow host answers robots.txt after 3 s; the crawl times a
			// request out after 1 s, so that host is unreachable.
			site, err := testweb.StartScenario(testweb.WithTimeout(3 * time.Second))
			if err != nil {
				return err
			}
			defer site.Close()
			if dir == "" {
				dir, err = os.MkdirTemp("", "heed-demo-")
				if err != nil {
					return err
				}
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{code: 2, err: err}
			}
			f := crawlFlags{
				agent:      "HeedBot",
				skiplog:    filepath.Join(dir, "skipped.jsonl"),
				out:        filepath.Join(dir, "pages.jsonl"),
				delay:      50 * time.Millisecond,
				workers:    16,
				perHost:    1,
				timeout:    time.Second,
				robotsAge:  24 * time.Hour,
				robotsGive: 3 * time.Second,
				maxDelay:   30 * time.Second,
				progress:   "auto",
				verbose:    verbose,
				domains:    site.Domains(),
			}
			fmt.Fprintf(stdout, "heed demo: crawling the local test site (%d hosts) as HeedBot\n", len(site.Hosts()))
			extra := []crawler.Option{
				crawler.WithTransport(site.Transport()),
				crawler.WithRetries(2, 200*time.Millisecond),
				crawler.WithRobotsGiveUp(3*time.Second, 250*time.Millisecond),
			}
			return runCrawl(cmd.Context(), &f, site.Seeds(), extra, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "write pages.jsonl and skipped.jsonl here (default: a new temporary directory)")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "log robots.txt fetches to stderr")
	return cmd
}

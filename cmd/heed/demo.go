package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/cli"
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

func demoCommand(a *cli.App) *cobra.Command {
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
				return cli.ExitError(2, err)
			}
			args := []string{"--agent", "HeedBot",
				"--skiplog", filepath.Join(dir, "skipped.jsonl"), "--out", filepath.Join(dir, "pages.jsonl"),
				"--delay", "50ms", "--timeout", "1s", "--robots-give-up", "3s"}
			if verbose {
				args = append(args, "--verbose")
			}
			for _, d := range site.Domains() {
				args = append(args, "--allow-domain", d)
			}
			fmt.Fprintf(a.Stdout(), "heed demo: crawling the local test site (%d hosts) as HeedBot\n", len(site.Hosts()))
			return a.Crawl(cmd.Context(), append(args, site.Seeds()...),
				crawler.WithTransport(site.Transport()),
				crawler.WithRetries(2, 200*time.Millisecond),
				crawler.WithRobotsGiveUp(3*time.Second, 250*time.Millisecond))
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "write pages.jsonl and skipped.jsonl here (default: a new temporary directory)")
	cli.VerboseFlag(cmd.Flags(), &verbose)
	return cmd
}

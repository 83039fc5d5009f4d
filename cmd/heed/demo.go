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
	var verbose, serve bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Crawl heed's built-in local test site and show what was fetched and skipped",
		Long: fmt.Sprintf(`Start heed's test site on loopback (%d hosts on %d addresses 127.0.0.x, each
with its own robots.txt: rules, a named group, Crawl-delay, 404, 403, 500, 503 then
200, a timeout, redirect chains, a 600 KiB file, sitemaps) and crawl it as
HeedBot. No network is needed. The summary shows pages fetched and URLs
skipped by reason; the skip log says, for every skipped URL, which robots.txt
line and rule excluded it.

The https host's certificate is its own CA, written to DIR/ca.pem: the
demo's crawl trusts it with --ca-file, as a crawl by hand can. With
--serve the site stays up (until Ctrl-C) instead of being crawled, and
the demo prints its seeds and a crawl command to try on it.`, testweb.ScenarioHosts(), testweb.ScenarioAddresses()),
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
			ca := filepath.Join(dir, "ca.pem")
			if err := os.WriteFile(ca, site.CertPEM(), 0o644); err != nil {
				return cli.ExitError(2, err)
			}
			if serve {
				return serveDemo(cmd, a, site, ca)
			}
			args := []string{"--agent", "HeedBot", "--ca-file", ca,
				"--skiplog", filepath.Join(dir, "skipped.jsonl"), "--out", filepath.Join(dir, "pages.jsonl"),
				"--delay", "50ms", "--timeout", "1s", "--robots-give-up", "3s"}
			if verbose {
				args = append(args, "--verbose")
			}
			for _, d := range site.Domains() {
				args = append(args, "--allow-domain", d)
			}
			fmt.Fprintf(a.Stdout(), "heed demo: crawling the local test site (%d hosts) as HeedBot\n", len(site.Hosts()))
			fmt.Fprintf(a.Stdout(), "heed demo: the https host's CA certificate is %s (the crawl trusts it with --ca-file)\n", ca)
			return a.Crawl(cmd.Context(), append(args, site.Seeds()...),
				crawler.WithRetries(2, 200*time.Millisecond),
				crawler.WithRobotsGiveUp(3*time.Second, 250*time.Millisecond))
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "write pages.jsonl and skipped.jsonl here (default: a new temporary directory)")
	cmd.Flags().BoolVar(&serve, "serve", false, "keep the test site up until interrupted instead of crawling it, to crawl by hand (its CA in DIR/ca.pem)")
	cli.VerboseFlag(cmd.Flags(), &verbose)
	return cmd
}

// serveDemo keeps the site up until the command's context ends, saying
// how to crawl it.
func serveDemo(cmd *cobra.Command, a *cli.App, site *testweb.Site, ca string) error {
	w := a.Stdout()
	fmt.Fprintf(w, "heed demo: serving the local test site (%d hosts) until interrupted\n", len(site.Hosts()))
	fmt.Fprintf(w, "CA certificate of the https host: %s\n", ca)
	for _, h := range site.Hosts() {
		fmt.Fprintf(w, "host %s %s\n", h.Name, h.Authority)
	}
	var tls string
	for _, h := range site.Hosts() {
		if h.TLS {
			tls = h.Authority + "/"
			break
		}
	}
	if tls != "" {
		fmt.Fprintf(w, "try: heed crawl --agent HeedBot --ca-file %s %s\n", ca, tls)
	}
	<-cmd.Context().Done()
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
)

func init() { commands = append(commands, crawlCommand) }

// crawlFlags are the settings of `heed crawl`, shared with `heed demo`.
type crawlFlags struct {
	agent      string
	userAgent  string
	out        string
	skiplog    string
	delay      time.Duration
	workers    int
	perHost    int
	depth      int
	maxPages   int
	maxPerHost int
	domains    []string
	include    []string
	exclude    []string
	timeout    time.Duration
	robotsAge  time.Duration
	robotsGive time.Duration
	maxDelay   time.Duration
	progress   string
	verbose    bool
	state      string
	skiplogSet bool // --skiplog was given (on the command line or in --config)
	job        jobFlags
	sm         sitemapFlags // see inventory.go
	fleet      fleetFlags   // see redis.go; heed crawl only
}

func (f *crawlFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "product token that selects robots.txt groups (required), e.g. ExampleBot")
	fl.StringVar(&f.userAgent, "user-agent", "", "User-Agent header; must contain the agent token (default: a compatible string naming the token)")
	fl.StringVar(&f.out, "out", "", "write an item per fetched page to this feed: .jsonl, .json or .csv, optionally .gz; - for stdout (with --format)")
	fl.StringVar(&f.skiplog, "skiplog", "skipped.jsonl", "write the skip log (every URL not fetched, and why) to this file")
	fl.DurationVar(&f.delay, "delay", time.Second, "least time between requests to one host; a larger robots.txt Crawl-delay wins")
	fl.IntVar(&f.workers, "concurrency", 16, "requests in flight in total")
	fl.IntVar(&f.perHost, "per-host", 1, "requests in flight per host (authority) when --delay is 0 and the host has no Crawl-delay; a spaced host always has one")
	fl.IntVar(&f.depth, "depth", 0, "follow links at most this deep from the seeds (0: no limit)")
	fl.IntVar(&f.maxPages, "max-pages", 0, "download at most this many pages (0: no limit)")
	fl.IntVar(&f.maxPerHost, "max-pages-per-host", 0, "download at most this many pages per host (0: no limit)")
	fl.StringArrayVar(&f.domains, "allow-domain", nil, "stay on this domain and its subdomains (repeatable; default: the seeds' hosts)")
	fl.StringArrayVar(&f.include, "include", nil, "only follow URLs matching this regular expression (repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "never follow URLs matching this regular expression (repeatable)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "timeout of one request")
	fl.DurationVar(&f.robotsAge, "robots-max-age", 24*time.Hour, "refetch robots.txt after this long (at most 24h)")
	fl.DurationVar(&f.robotsGive, "robots-give-up", 10*time.Minute, "how long to retry an unreachable robots.txt before skipping its host's URLs")
	fl.DurationVar(&f.maxDelay, "max-crawl-delay", 30*time.Second, "hosts asking for a longer Crawl-delay are skipped")
	fl.StringVar(&f.progress, "progress", "auto", "live progress on stderr: auto (when a terminal), always, never")
	fl.BoolVar(&f.verbose, "verbose", false, "log robots.txt fetches and errors to stderr")
	fl.StringVar(&f.state, "state", "", "keep the crawl's state in this directory: Ctrl-C pauses, a crash loses nothing queued, and the same command resumes (the skip log is DIR/skipped.jsonl; --out is appended to)")
	f.job.register(cmd)
	f.sm.register(cmd)
}

func (f *crawlFlags) options(stderr io.Writer) ([]crawler.Option, error) {
	opts := []crawler.Option{
		crawler.WithDelay(f.delay),
		crawler.WithWorkers(f.workers),
		crawler.WithConcurrencyPerHost(f.perHost),
		crawler.WithMaxDepth(f.depth),
		crawler.WithMaxPages(f.maxPages),
		crawler.WithMaxPagesPerHost(f.maxPerHost),
		crawler.WithTimeout(f.timeout),
		crawler.WithRobotsMaxAge(f.robotsAge),
		crawler.WithRobotsGiveUp(f.robotsGive, 0),
		crawler.WithMaxCrawlDelay(f.maxDelay),
	}
	if f.userAgent != "" {
		opts = append(opts, crawler.WithUserAgent(f.userAgent))
	}
	if len(f.domains) > 0 {
		opts = append(opts, crawler.WithAllowedDomains(f.domains...))
	}
	for _, spec := range []struct {
		list []string
		opt  func(...*regexp.Regexp) crawler.Option
	}{{f.include, crawler.WithInclude}, {f.exclude, crawler.WithExclude}} {
		for _, p := range spec.list {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, usageError("bad pattern %q: %v", p, err)
			}
			opts = append(opts, spec.opt(re))
		}
	}
	smOpts, err := f.sm.options()
	if err != nil {
		return nil, err
	}
	opts = append(opts, smOpts...)
	if f.verbose {
		opts = append(opts, crawler.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	}
	return opts, nil
}

func crawlCommand(stdout, stderr io.Writer) *cobra.Command {
	var f crawlFlags
	cmd := &cobra.Command{
		Use:   "crawl URL...",
		Short: "Crawl sites politely: robots.txt obeyed, hosts paced, every skipped URL logged",
		Long: `Crawl from the given URLs, following links within the seeds' hosts (or
the --allow-domain list). robots.txt is fetched per host and obeyed for the
--agent token (RFC 9309); requests to one host are spaced by --delay or the
host's Crawl-delay, whichever is longer. Every URL that is not fetched is
written to the skip log with the reason and, for robots.txt, the deciding
line and rule. Interrupt with Ctrl-C: requests in flight finish, and the
skip log and items are complete.

With --state DIR the crawl is a job that survives: its queue, robots.txt
files, pacing, budget, statistics and skip log live in DIR. Ctrl-C pauses it
(queued URLs stay queued), a crash or kill -9 loses nothing queued and no
skip-log record, and running the same command again resumes it, appending to
--out (JSON Lines or CSV). heed status --state DIR shows its progress.

With --redis URL the crawl is shared by several heed processes, on one
machine or many: start the same command in each (or give each the same
--crawl-id). They share one queue, one robots.txt cache and the pacing, so
every host is paced across the whole fleet. Each process writes its own
skip log (merge them with heed skiplog merge) and prints the crawl-wide
counts when it stops. Ctrl-C stops one process: the others carry on with
its queue, and a process that dies leaves its requests to them after
--lease-timeout.`,
		Example: `  heed crawl https://example.com/ --agent ExampleBot --out pages.jsonl --skiplog skipped.jsonl
  heed crawl --config crawl.yaml --out pages.csv.gz --metrics 127.0.0.1:9090 --stats-interval 1m
  heed crawl https://example.com/ --agent ExampleBot --state job1 --out pages.jsonl   # run again to resume
  heed crawl https://example.com/ --agent ExampleBot --redis redis://10.0.0.5:6379/0 --crawl-id news   # on each machine`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := f.job.applyConfig(cmd, args)
			if err != nil {
				return err
			}
			if len(args) == 0 && len(f.sm.urls) == 0 {
				return usageError("crawl needs at least one URL (or --sitemap)")
			}
			if f.agent == "" {
				return usageError("--agent is required: the product token robots.txt rules are written for")
			}
			f.skiplogSet = cmd.Flags().Changed("skiplog")
			return runCrawl(cmd.Context(), &f, args, nil, stdout, stderr)
		},
	}
	f.register(cmd)
	f.fleet.register(cmd)
	return cmd
}

// runCrawl runs a crawl with the command line's settings and prints the
// summary; extra options come after the flags' (the demo adds its own).
func runCrawl(ctx context.Context, f *crawlFlags, seeds []string, extra []crawler.Option, stdout, stderr io.Writer) error {
	opts, err := f.options(stderr)
	if err != nil {
		return err
	}
	opts = append(opts, extra...)
	closeFleet, err := f.setupFleet(seeds, &opts, stderr)
	if err != nil {
		return err
	}
	defer closeFleet()
	var skipFile *os.File
	if f.state != "" {
		if f.skiplogSet {
			return usageError("--skiplog with --state: a resumable crawl keeps its skip log in its state, %s", filepath.Join(f.state, "skipped.jsonl"))
		}
		if err := f.resumable(); err != nil {
			return err
		}
		// The state is locked before the feed is touched: a second crawl
		// on the same state must not repair the feed the first is
		// writing.
		st, err := crawler.OpenDirState(f.state)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		defer st.Close() // Run closes it; this covers the early returns
		opts = append(opts, crawler.WithStateStore(st))
	} else if f.skiplog != "" {
		skipFile, err = os.OpenFile(f.skiplog, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		defer skipFile.Close()
		opts = append(opts, crawler.WithSkipLog(skipFile))
	}
	var feed *feed.Feed
	if f.state != "" {
		feed, err = f.openResumedFeed(stdout)
	} else {
		feed, err = f.job.openFeed(f.out, stdout)
	}
	if err != nil {
		return err
	}
	if feed != nil {
		defer feed.Close() // Run closes it; this covers the early returns
	}
	stdout = summaryWriter(f.out, stdout, stderr)
	c, err := crawler.New(f.agent, opts...)
	if err != nil {
		return usageError("%v", err)
	}
	if !f.sm.only {
		c.FollowLinks()
	}
	if feed != nil {
		c.Export(feed)
		c.EmitPages()
	}
	stopJob, err := f.job.start(c, stderr)
	if err != nil {
		stopJob()
		return err
	}
	stopProgress := startProgress(f.progress, stderr, c.Stats())
	sum, err := c.Run(ctx, seeds...)
	stopProgress()
	stopJob()
	switch {
	case sum.State != nil:
		stateOutcome(stdout, f.state, sum)
	case sum.Fleet != nil && sum.Interrupted:
		fmt.Fprintln(stdout, "process stopped: its requests in flight finished; the URLs still queued stay queued for the other processes")
	case sum.Interrupted:
		fmt.Fprintln(stdout, "crawl interrupted: URLs still queued are in the skip log as interrupted")
	}
	sum.Stats.Format(stdout)
	sum.Skipped.Format(stdout)
	sum.Sitemaps.Format(stdout)
	if sum.Fleet != nil {
		sum.Fleet.Format(stdout)
	}
	if f.state != "" {
		fmt.Fprintf(stdout, "skip log: %s\n", filepath.Join(f.state, "skipped.jsonl"))
	} else if f.skiplog != "" {
		fmt.Fprintf(stdout, "skip log: %s\n", f.skiplog)
	}
	if f.out != "" {
		fmt.Fprintf(stdout, "items: %s\n", f.out)
	}
	if err != nil {
		return err
	}
	if sum.Interrupted && (sum.State == nil || !sum.State.Job.Complete) {
		return &exitError{code: 130}
	}
	return nil
}

// resumable refuses the feeds a crawl with --state cannot append to, before
// anything is opened.
func (f *crawlFlags) resumable() error {
	if f.out == "" || f.out == "-" {
		return nil
	}
	fm, gz, _ := feed.FormatFor(f.out)
	if f.job.format != "" {
		fm, _ = feed.ParseFormat(f.job.format)
	}
	if gz || fm == feed.JSONFormat {
		_, err := feed.Resume(f.out, feed.WithFormat(fm), feed.WithGzip(gz))
		return usageError("--out with --state: %v", err)
	}
	return nil
}

// openResumedFeed opens --out to append to it, for a crawl with --state.
func (f *crawlFlags) openResumedFeed(stdout io.Writer) (*feed.Feed, error) {
	if f.out == "" {
		if f.job.format != "" {
			return nil, usageError("--format needs --out")
		}
		return nil, nil
	}
	opts := []feed.Option{feed.WithStdout(stdout)}
	if f.job.format != "" {
		fm, err := feed.ParseFormat(f.job.format)
		if err != nil {
			return nil, usageError("--format: %v", err)
		}
		opts = append(opts, feed.WithFormat(fm))
	}
	feed, err := feed.Resume(f.out, opts...)
	if err != nil {
		return nil, usageError("--out with --state: %v", err)
	}
	return feed, nil
}

// stateOutcome says how a crawl with --state ended: complete, or paused
// and how to resume it.
func stateOutcome(w io.Writer, dir string, sum crawler.Summary) {
	st := sum.State
	switch {
	case st.Job.Complete && st.WasComplete && st.Fetched == 0:
		fmt.Fprintf(w, "crawl already complete: nothing left to do (state %s, %d runs)\n", dir, st.Job.Runs)
	case st.Job.Complete:
		fmt.Fprintf(w, "crawl complete: every URL is fetched or in the skip log (state %s, run %d); running the same command again does nothing\n", dir, st.Job.Runs)
	case sum.Interrupted:
		fmt.Fprintf(w, "crawl paused: %d URLs still queued; run the same command to resume (state %s)\n", sum.Stats.Waiting, dir)
	default:
		fmt.Fprintf(w, "crawl stopped with %d URLs still queued; run the same command to resume (state %s)\n", sum.Stats.Waiting, dir)
	}
}

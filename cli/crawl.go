package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/jobstate"
)

const crawlLong = `Crawl from the given URLs (default: the spider's start URLs), following
the links the spider follows within the seeds' hosts (or the --allow-domain
list). robots.txt is fetched per host and obeyed for the --agent token (RFC
9309); requests to one host are spaced by --delay or the host's Crawl-delay,
whichever is longer. Every URL that is not fetched is written to the skip
log with the reason and, for robots.txt, the deciding line and rule.
Interrupt with Ctrl-C: requests in flight finish (a sitemap being read is
cut, and read again by a resumed --state job), and the skip log and items
are complete.

What goes wrong is logged to stderr when it happens, at warning level:
retries, hosts paused by a 429 or 503, robots.txt outages (with the next
try and the give-up time), hosts given up, lost output (--log-level,
--log-format text or json). On a terminal a progress line fits its
width; elsewhere a progress record is logged every 30 s.

Every option is checked before any file is opened: a refused option exits
with status 2 and leaves earlier feeds and skip logs as they were. The
feed, the skip log and the state must be different files. A feed or skip
log that cannot be written fails the crawl (exit status 1), saying how many
records were lost.

With --state DIR the crawl is a job that survives: its queue, robots.txt
files, pacing, budget, statistics and skip log live in DIR. Ctrl-C pauses it
(queued URLs stay queued), a crash or kill -9 loses nothing queued and no
skip-log record, and running the same command again resumes it, appending to
--out (JSON Lines or CSV). status --state DIR shows its progress.

With --redis URL the crawl is shared by several processes, on one machine
or many: start the same command in each (or give each the same
--crawl-id). They share one queue, one robots.txt cache and the pacing, so
every host is paced across the whole fleet. Each process writes its own
skip log (merge them with skiplog merge) and prints the crawl-wide counts
when it stops. Ctrl-C stops one process: the others carry on with its
queue, and a process that dies leaves its requests to them after
--lease-timeout.

Exit status: 0 when the crawl ran to its end, 1 when it failed or lost
output, 2 on usage errors, 3 when it ran to its end without fetching a
single page although it tried (robots.txt unreachable for every host,
every fetch failed: the summary says which), 130 when interrupted (with
--state: paused, to be resumed).`

func (a *App) crawlCommand() *cobra.Command { return a.newCrawlCommand(nil) }

// newCrawlCommand makes crawl; extra options apply after the flags'.
func (a *App) newCrawlCommand(extra []crawler.Option) *cobra.Command {
	f := &crawlFlags{groups: []FlagGroup{&watchFlags{}, &uiFlags{}}}
	for _, g := range a.groups {
		f.groups = append(f.groups, g())
	}
	cmd := &cobra.Command{
		Use:   "crawl [URL...]",
		Short: "Crawl sites politely: robots.txt obeyed, hosts paced, every skipped URL logged",
		Long:  crawlLong,
		Example: fmt.Sprintf(`  %[1]s crawl https://example.com/ --agent ExampleBot --out pages.jsonl --skiplog skipped.jsonl
  %[1]s crawl --config crawl.yaml --out pages.csv.gz --metrics 127.0.0.1:9090 --stats-interval 1m
  %[1]s crawl https://example.com/ --agent ExampleBot --state job1 --out pages.jsonl   # run again to resume
  %[1]s crawl https://example.com/ --agent ExampleBot --redis redis://10.0.0.5:6379/0 --crawl-id news   # on each machine`, a.name),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCrawl(cmd, f, args, extra)
		},
	}
	spiders := a.spiderList()
	f.register(cmd, a.agentDefault())
	if len(spiders) > 1 {
		names := make([]string, len(spiders))
		for i, s := range spiders {
			names[i] = spiderName(s)
		}
		cmd.Flags().StringVar(&f.spider, "spider", names[0], "the spider to run: "+strings.Join(names, ", "))
	}
	return cmd
}

// Crawl runs crawl with args as they would be given on the command line,
// the extra options applied after the flags': heed's demo crawls its
// local test site this way. Its error carries crawl's exit status.
func (a *App) Crawl(ctx context.Context, args []string, extra ...crawler.Option) error {
	cmd := a.newCrawlCommand(extra)
	cmd.SetArgs(args)
	cmd.SetOut(a.stdout)
	cmd.SetErr(a.stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: 2, err: err} })
	a.dress(cmd)
	err := cmd.ExecuteContext(ctx)
	var ee *exitError
	if errors.As(err, &ee) && ee.err != nil {
		err = &exitError{code: ee.code, err: a.envLocate(ee.err)}
	}
	return err
}

// spiderList is the App's spiders; heed's page spider when it has none.
func (a *App) spiderList() []crawler.Spider {
	if len(a.spiders) == 0 {
		a.spiders = []crawler.Spider{Pages()}
	}
	return a.spiders
}

// spiderName is how --spider names a spider: its product token, "pages"
// for heed's page spider.
func spiderName(s crawler.Spider) string {
	if s.Name() == "" {
		return "pages"
	}
	return s.Name()
}

func (a *App) chooseSpider(name string) (crawler.Spider, error) {
	spiders := a.spiderList()
	if name == "" {
		return spiders[0], nil
	}
	for _, s := range spiders {
		if spiderName(s) == name {
			return s, nil
		}
	}
	return nil, usageError("--spider %q: no such spider", name)
}

// runCrawl checks every setting, then builds the crawler, then opens the
// outputs, then crawls and prints the summary.
func (a *App) runCrawl(cmd *cobra.Command, f *crawlFlags, args []string, extra []crawler.Option) error {
	// stderr is shared by the log and the progress line (progress.go).
	stdout, stderr := a.stdout, newLiveTerm(a.stderr)
	cfg, err := f.applyConfig(cmd)
	if err != nil {
		return err
	}
	spider, err := a.chooseSpider(f.spider)
	if err != nil {
		return err
	}
	if f.agent == "" && !cmd.Flags().Changed("agent") {
		f.agent = spider.Name()
	}
	seeds := args
	if len(seeds) == 0 && cfg != nil {
		seeds = cfg.urls
	}
	if len(seeds) == 0 {
		seeds = spider.StartURLs()
	}
	if len(seeds) == 0 && len(f.sm.urls) == 0 {
		return usageError("crawl needs at least one URL (or --sitemap)")
	}
	f.skiplogSet = cmd.Flags().Changed("skiplog")
	if err := f.checkAll(seeds); err != nil {
		return cfg.locate(err)
	}
	f.connFlags.warn(stderr, a.name)

	l := optionList{fs: cmd.Flags()}
	f.options(&l, stderr)
	var spiderOpts []crawler.Option
	if so, ok := spider.(crawler.SpiderOptions); ok {
		spiderOpts = so.Options()
	}
	opts := append(l.with(spiderOpts), extra...)
	for _, g := range f.groups {
		if o, ok := g.(groupOptions); ok {
			opts = append(opts, o.Options()...)
		}
	}
	cache, err := f.cacheFlags.open()
	if err != nil {
		return err
	}
	if cache != nil {
		opts = append(opts, crawler.WithHTTPCache(cache))
	}
	closeFleet, err := f.setupFleet(a.name, seeds, &opts, stderr)
	if err != nil {
		return err
	}
	defer closeFleet()
	var skipFile lateFile
	if f.state != "" {
		// The state is locked before the feed is touched: a second crawl
		// on the same state must not repair the feed the first is
		// writing.
		st, err := jobstate.Open(f.state)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		defer st.Close() // Run closes it; this covers the early returns
		opts = append(opts, crawler.WithBackend(jobstate.New(st)))
	} else if f.skiplog != "" {
		opts = append(opts, crawler.WithSkipLog(&skipFile))
	}
	if ca, ok := spider.(crawlAware); ok {
		ca.configure(f.sm.only, f.out != "")
	}
	c, err := crawler.New(f.agent, opts...)
	if err != nil {
		return usageError("%v", err)
	}
	if err := f.fleet.finished(cmd.Context(), summaryWriter(f.out, stdout, stderr)); err != nil {
		return err
	}
	if err := spider.Setup(c); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("spider %s: %w", spiderName(spider), err)}
	}
	// The cache is pruned to its bound when the crawl starts, past the
	// last refusal (a --state job's resume included), before any page is
	// stored.
	c.OnStart(func(*crawler.Crawler) {
		if err := f.cacheFlags.bound(); err != nil {
			fmt.Fprintf(stderr, "%s: --cache-max-size: the cache was not pruned: %v\n", a.name, err)
		}
	})
	report := f.reportLogger(stderr)
	statsLogged := false
	for _, g := range f.groups {
		if ra, ok := g.(reportAware); ok {
			ra.setReportLogger(report)
			statsLogged = statsLogged || ra.logsStats()
		}
	}
	stopGroups, err := startGroups(f.groups, c, a)
	defer stopGroups()
	if err != nil {
		return err
	}

	// Only now, with every option accepted, are files opened.
	if f.state == "" && f.skiplog != "" {
		if err := skipFile.create(f.skiplog); err != nil {
			return &exitError{code: 2, err: err}
		}
		defer skipFile.Close()
	}
	feed, err := f.openFeed(stdout)
	if err != nil {
		return err
	}
	if feed != nil {
		defer feed.Close() // Run closes it; this covers the early returns
		c.Export(feed)
	}
	stdout = summaryWriter(f.out, stdout, stderr)
	stopProgress := progress{mode: f.progress, term: stderr, log: report, logged: statsLogged}.start(crawlProgress(c.Stats(), c.Live))
	sum, err := c.Run(cmd.Context(), seeds...)
	stopProgress()
	stopGroups()
	f.printSummary(stdout, sum)
	if jerr := f.writeSummaryJSON(sum); jerr != nil {
		if err != nil {
			jerr = fmt.Errorf("%w (%v)", jerr, err)
		}
		return &exitError{code: 1, err: jerr}
	}
	if lost := f.lost(sum, feed); lost != nil {
		if err != nil {
			lost = fmt.Errorf("%w (%v)", lost, err)
		}
		return &exitError{code: 1, err: lost}
	}
	if err != nil {
		return err
	}
	if sum.Interrupted && (jobstate.InfoOf(sum.Backend) == nil || !jobstate.InfoOf(sum.Backend).Job.Complete) {
		return &exitError{code: 130}
	}
	if sum.NothingFetched != nil {
		return &exitError{code: exitNothingFetched, err: sum.NothingFetched}
	}
	return nil
}

// exitNothingFetched is crawl's exit status when the crawl ran to its end
// without fetching a page although it tried (crawler.NothingFetched):
// not a failure of heed (1) nor of the command line (2), but not a
// success either.
const exitNothingFetched = 3

// checkAll validates every setting and the seeds, and that the outputs
// are different files, before anything is opened.
func (f *crawlFlags) checkAll(seeds []string) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := checkSeeds(seeds, f.sm.urls); err != nil {
		return err
	}
	if err := f.checkFleet(); err != nil {
		return err
	}
	if f.state != "" {
		if f.skiplogSet {
			return usageError("--skiplog with --state: a resumable crawl keeps its skip log in its state, %s", filepath.Join(f.state, defaultSkipLog))
		}
		if err := f.resumable(); err != nil {
			return err
		}
	}
	if err := checkFeed(f.out, f.format); err != nil {
		return err
	}
	if err := f.checkOutputs(); err != nil {
		return err
	}
	return f.checkFeedMode()
}

// skipLogPath is where the crawl's skip log goes ("" for none).
func (f *crawlFlags) skipLogPath() string {
	if f.state != "" {
		return filepath.Join(f.state, defaultSkipLog)
	}
	return f.skiplog
}

// checkOutputs refuses a feed, skip log and state that name one file.
func (f *crawlFlags) checkOutputs() error {
	outs := []output{{flag: "--skiplog", path: f.skiplog, isDefault: !f.skiplogSet}}
	if f.state != "" {
		outs[0] = output{flag: "the skip log of --state", path: f.skipLogPath(), ofState: true}
	}
	if f.out != "-" {
		outs = append(outs, output{flag: "--out", path: f.out})
	}
	outs = append(outs, output{flag: "--summary-json", path: f.summaryJSON})
	return checkOutputs(outs, f.state)
}

// printSummary says how the crawl ended, then its counts and files.
func (f *crawlFlags) printSummary(w io.Writer, sum crawler.Summary) {
	switch {
	case jobstate.InfoOf(sum.Backend) != nil:
		stateOutcome(w, f.state, sum)
	case fleet.SummaryOf(sum.Backend) != nil && sum.Interrupted:
		fmt.Fprintln(w, "process stopped: its requests in flight finished; the URLs still queued stay queued for the other processes")
	case sum.Interrupted:
		fmt.Fprintln(w, "crawl interrupted: URLs still queued are in the skip log as interrupted")
	case sum.Sitemaps.Incomplete > 0:
		fmt.Fprintf(w, "crawl INCOMPLETE: every URL discovered is fetched or in the skip log, but %d sitemaps were not read to their end, so pages they list may be neither\n", sum.Sitemaps.Incomplete)
	}
	if sum.NothingFetched != nil {
		fmt.Fprintf(w, "crawl failed: %v\n", sum.NothingFetched)
	}
	sum.Stats.Format(w)
	f.cacheFlags.summary(w)
	sum.Skipped.Format(w)
	sum.Sitemaps.Format(w)
	if fleet.SummaryOf(sum.Backend) != nil {
		fleet.SummaryOf(sum.Backend).Format(w)
	}
	if p := f.skipLogPath(); p != "" {
		fmt.Fprintf(w, "skip log: %s\n", p)
	}
	if f.out != "" {
		fmt.Fprintf(w, "items: %s\n", f.out)
	}
	if f.insecure {
		fmt.Fprintln(w, insecureWarning)
	}
}

// lost says what output the crawl could not write, or nil.
func (f *crawlFlags) lost(sum crawler.Summary, feed *guardedFeed) error {
	var msgs []string
	if feed != nil {
		if err := feed.loss(); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if sum.Skipped.Failed > 0 {
		msgs = append(msgs, fmt.Sprintf("the skip log %s is incomplete: %d of its %d records could not be written", f.skipLogPath(), sum.Skipped.Failed, sum.Skipped.Total))
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// stateOutcome says how a crawl with --state ended: complete, or paused
// and how to resume it.
func stateOutcome(w io.Writer, dir string, sum crawler.Summary) {
	st := jobstate.InfoOf(sum.Backend)
	switch {
	case st.Job.Complete && st.WasComplete && st.Fetched == 0:
		fmt.Fprintf(w, "crawl already complete: nothing left to do (state %s, %d runs)\n", dir, st.Job.Runs)
	case st.Job.Complete && sum.Sitemaps.Incomplete > 0:
		fmt.Fprintf(w, "crawl complete but INCOMPLETE: every URL discovered is fetched or in the skip log, but %d sitemaps were not read to their end, so pages they list may be neither (state %s, run %d)\n", sum.Sitemaps.Incomplete, dir, st.Job.Runs)
	case st.Job.Complete:
		fmt.Fprintf(w, "crawl complete: every URL is fetched or in the skip log (state %s, run %d); running the same command again does nothing\n", dir, st.Job.Runs)
	case sum.Interrupted:
		fmt.Fprintf(w, "crawl paused: %d URLs still queued; run the same command to resume (state %s)\n", sum.Stats.Waiting, dir)
	default:
		fmt.Fprintf(w, "crawl stopped with %d URLs still queued; run the same command to resume (state %s)\n", sum.Stats.Waiting, dir)
	}
	if n := st.Approximate(); n != "" {
		fmt.Fprintln(w, n)
	}
}

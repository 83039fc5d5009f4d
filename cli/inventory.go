package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
	"github.com/heedcrawl/heed/inventory"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/ui"
)

// sitemapFlags are the sitemap settings of `heed crawl` (and, partly, of
// `heed inventory`). The zero value is heed's default: no discovery.
type sitemapFlags struct {
	urls       []string
	discover   bool
	only       bool
	since      string
	noFallback bool
}

// registerSources adds the flags that say which sitemaps to read.
func (f *sitemapFlags) registerSources(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.urls, "sitemap", nil, "also read this sitemap (or index, text sitemap, feed) and take the pages it lists (repeatable)")
	fl.StringVar(&f.since, "since", "", "only sitemap entries with lastmod at or after this date (2026-01-01 or RFC 3339); entries without lastmod are kept")
	fl.BoolVar(&f.noFallback, "no-sitemap-fallback", false, "do not try /sitemap.xml when robots.txt lists no sitemap")
}

// register adds crawl's sitemap flags: the sources, discovery, and
// crawling only what sitemaps list.
func (f *sitemapFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.registerSources(fl)
	fl.BoolVar(&f.discover, "sitemaps", false, "also crawl the pages each host's sitemaps list: robots.txt Sitemap lines, else /sitemap.xml")
	fl.BoolVar(&f.only, "sitemaps-only", false, "crawl only what sitemaps list: the URLs name sites whose sitemaps are read; heed's page spider follows no link")
}

func (f *sitemapFlags) options() ([]crawler.Option, error) {
	var opts []crawler.Option
	if len(f.urls) > 0 {
		opts = append(opts, crawler.WithSitemaps(f.urls...))
	}
	if f.discover {
		opts = append(opts, crawler.WithSitemapDiscovery())
	}
	if f.only {
		opts = append(opts, crawler.WithSitemapSeeds())
	}
	if f.noFallback {
		opts = append(opts, crawler.WithSitemapFallback(false))
	}
	if f.since != "" {
		t, err := parseSince(f.since)
		if err != nil {
			return nil, err
		}
		opts = append(opts, crawler.WithSitemapSince(t))
	}
	return opts, nil
}

// parseSince reads a --since date: a day (UTC) or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339, time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageError("--since %q: want a date like 2026-01-01 or an RFC 3339 time", s)
}

// inventoryFlags are the settings of `heed inventory`.
type inventoryFlags struct {
	agentFlags
	timeoutFlag
	paceFlags
	reportFlags
	formatFlag
	configFlag      // shared with crawl (shared_flags.go)
	concurrencyFlag // robots.txt files fetched at once
	patternFlags    // which listed URLs are rows
	metricsFlag
	connFlags     // see transport_flags.go
	overwriteFlag // replace an existing --out file (shared_flags.go)
	out           string
	sm            sitemapFlags
}

func (a *App) inventoryCommand() *cobra.Command {
	stdout, stderr := a.stdout, a.stderr
	var f inventoryFlags
	cmd := &cobra.Command{
		Use:   "inventory URL... --agent TOKEN",
		Short: "List every URL a site's sitemaps declare, with heed's robots.txt verdict for each",
		Long: `Read the sitemaps of each site (the Sitemap lines of its robots.txt, else
/sitemap.xml), follow sitemap indexes, and write one row per listed URL:
url, lastmod (RFC 3339, UTC; lastmod_raw as written), changefreq, priority,
the sitemap that lists it, and whether robots.txt allows it for --agent,
with the deciding line, rule and group. Give --agent several times (the
first fetches) for one verdict per agent: JSON rows get "agents", CSV rows
a column per agent (allowed, or the reason) and its rule; each robots.txt
is still fetched once. --include and --exclude choose the listed URLs
that are rows (the others are skip-logged as sitemap-filter); --config
reads the same YAML keys as crawl's, its urls being the sites.
No page is fetched. Sitemap fetches obey robots.txt and are paced like a
crawl's: a sitemap robots.txt disallows is not fetched; it is reported and
written to the skip log.

Rows go to --out (or standard output) as JSON Lines or CSV (--format, or
the --out file name); --format html (or an --out name ending in .html)
writes one self-contained HTML report instead: URLs per sitemap, the URLs
listed but disallowed with their rule, the lastmod distribution and the
duplicates across sitemaps. An --out file that exists and is not empty is
refused unless --overwrite. A summary follows on standard output (standard error
when rows go there): sitemaps with their URL counts, duplicates, and the
URLs a sitemap lists but robots.txt disallows, with line and rule.

Exit status: 0 when every sitemap found was read, 1 when the rows are
incomplete (a sitemap could not be fetched or parsed, a robots.txt was
unreachable), 2 on usage or output errors, 130 when interrupted.`,
		Example: `  heed inventory https://example.com/ --agent ExampleBot --format csv --out inventory.csv
  heed inventory https://example.com/ --agent Googlebot --agent Bingbot --agent GPTBot --out audit.csv
  heed inventory https://example.com/ --agent ExampleBot --since 2026-01-01 > recent.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.configFlag.apply(cmd)
			if err != nil {
				return err
			}
			if len(args) == 0 && cfg != nil {
				args = cfg.urls
			}
			if err := f.check(cmd, args); err != nil {
				return cfg.locate(err)
			}
			return runInventory(cmd, &f, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.agentFlags.names, f.agentFlags.many = true, true
	f.agentFlags.register(fl, a.agentDefault())
	f.timeoutFlag.register(fl)
	f.paceFlags.register(fl)
	f.reportFlags.register(fl)
	f.formatFlag.register(fl)
	f.connFlags.register(fl)
	fl.StringVar(&f.out, "out", "", "write the rows to this file (default: standard output); an existing non-empty file is refused without --overwrite")
	f.overwriteFlag.register(fl)
	f.sm.registerSources(fl)
	f.configFlag.register(fl)
	f.concurrencyFlag.register(fl)
	f.patternFlags.register(fl, "list")
	f.metricsFlag.register(fl)
	return cmd
}

// check validates every setting and the outputs' paths, before anything
// is opened.
func (f *inventoryFlags) check(cmd *cobra.Command, sites []string) error {
	if err := firstError(f.agentFlags.check(), f.timeoutFlag.check(), f.paceFlags.check(), f.reportFlags.check(),
		f.concurrencyFlag.check(), f.patternFlags.check(), f.connFlags.check()); err != nil {
		return err
	}
	if len(sites) == 0 && len(f.sm.urls) == 0 {
		return usageError("inventory needs at least one site URL (or --sitemap)")
	}
	if err := checkSeeds(sites, f.sm.urls); err != nil {
		return err
	}
	if f.format == "" {
		f.format = "jsonl"
		switch lo := strings.ToLower(f.out); {
		case strings.HasSuffix(lo, ".csv"):
			f.format = "csv"
		case strings.HasSuffix(lo, ".html"), strings.HasSuffix(lo, ".htm"):
			f.format = "html"
		}
	}
	if f.format != "jsonl" && f.format != "csv" && f.format != "html" {
		return usageError("--format %q: want jsonl, csv or html (the inventory writes those)", f.format)
	}
	if _, err := f.sm.options(); err != nil {
		return err
	}
	outs := []output{{flag: "--skiplog", path: f.skiplog, isDefault: !cmd.Flags().Changed("skiplog")}}
	if f.out != "-" {
		outs = append(outs, output{flag: "--out", path: f.out})
	}
	if err := checkOutputs(outs, ""); err != nil {
		return err
	}
	switch {
	case f.overwrite && (f.out == "" || f.out == "-"):
		return usageError("--overwrite is for an --out file")
	case f.overwrite:
		return nil
	}
	return refuseExisting("--out", f.out, "add --overwrite to replace it")
}

func runInventory(cmd *cobra.Command, f *inventoryFlags, sites []string, stdout, errOut io.Writer) error {
	stderr := newLiveTerm(errOut) // shared by the log and the progress line
	opts, _ := f.sm.options()     // check parsed them
	l := optionList{fs: cmd.Flags()}
	l.add("timeout", crawler.WithTimeout(f.timeout))
	l.add("concurrency", crawler.WithWorkers(f.workers))
	f.paceFlags.options(&l)
	if include, exclude := f.patternFlags.compiled(); len(include)+len(exclude) > 0 {
		l.always(crawler.WithSitemapInclude(include...), crawler.WithSitemapExclude(exclude...))
	}
	if f.userAgent != "" {
		l.always(crawler.WithUserAgent(f.userAgent))
	}
	if lg := f.logger(stderr); lg != nil {
		l.always(crawler.WithLogger(lg))
	}
	opts = append(opts, l.with(nil)...)
	opts = append(opts, f.connFlags.crawlerOptions()...)
	var skipFile lateFile
	if f.skiplog != "" {
		opts = append(opts, crawler.WithSkipLog(&skipFile))
	}
	inv, err := inventory.NewForAgents(f.agents, opts...)
	if err != nil {
		return usageError("%v", err)
	}
	for _, a := range inv.Agents() {
		if note := robots.TokenNote(a); note != "" {
			fmt.Fprintln(stderr, "heed: note: "+note)
		}
	}
	if f.metrics != "" {
		srv, err := metrics.ListenInventory(f.metrics, inv, prometheus.Labels{"agent": f.agent})
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--metrics: %w", err)}
		}
		defer srv.Close()
		fmt.Fprintf(stderr, "metrics: http://%s/metrics\n", srv.Addr())
	}
	f.connFlags.warn(stderr, "heed")

	// Only now, with every option accepted, are files opened.
	if f.skiplog != "" {
		if err := skipFile.create(f.skiplog); err != nil {
			return &exitError{code: 2, err: err}
		}
		defer skipFile.Close()
	}
	rowsOut, summaryOut := stdout, io.Writer(stderr)
	var outFile *os.File
	if f.out != "" && f.out != "-" {
		outFile, err = os.OpenFile(f.out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		defer outFile.Close()
		rowsOut, summaryOut = outFile, stdout
	}
	w := newRowWriter(f.format, rowsOut, inv.Agents())
	visit := w.write
	var report *ui.InventoryReport
	if f.format == "html" {
		// One self-contained report, written once the summary is known.
		report = ui.NewInventoryReport(inv.Agents()...)
		visit = func(r inventory.Row) error { report.Add(r); return nil }
	}
	stop := progress{mode: f.progress, term: stderr, log: f.reportLogger(stderr)}.start(inventoryProgress(inv))
	sum, err := inv.Run(cmd.Context(), sites, visit)
	stop()
	if report != nil && sum != nil {
		if werr := report.Write(rowsOut, sum); werr != nil && err == nil {
			err = werr
		}
	}
	if ferr := w.flush(); ferr != nil && err == nil {
		err = ferr
	}
	if outFile != nil {
		if cerr := outFile.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if sum != nil {
		sum.Format(summaryOut)
		if f.out != "" && f.out != "-" {
			fmt.Fprintf(summaryOut, "rows: %s\n", f.out)
		}
		if f.skiplog != "" {
			fmt.Fprintf(summaryOut, "skip log: %s\n", f.skiplog)
		}
	}
	switch {
	case sum != nil && sum.Interrupted:
		return &exitError{code: 130}
	case err != nil || sum == nil:
		return &exitError{code: 2, err: err}
	case !sum.Complete():
		return &exitError{code: 1}
	}
	return nil
}

// rowWriter writes inventory rows as JSON Lines or CSV.
type rowWriter struct {
	enc *json.Encoder
	csv *csv.Writer
	err error
}

func newRowWriter(format string, w io.Writer, agents []string) *rowWriter {
	if format == "csv" {
		cw := csv.NewWriter(w)
		rw := &rowWriter{csv: cw}
		rw.err = cw.Write(inventory.ColumnsFor(agents))
		return rw
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &rowWriter{enc: enc}
}

// write writes one row; an output error stops the inventory.
func (w *rowWriter) write(r inventory.Row) error {
	if w.err != nil {
		return w.err
	}
	if w.csv != nil {
		w.err = w.csv.Write(r.Fields())
	} else {
		w.err = w.enc.Encode(r)
	}
	if w.err != nil {
		w.err = fmt.Errorf("writing rows: %w", w.err)
	}
	return w.err
}

func (w *rowWriter) flush() error {
	if w.csv != nil {
		w.csv.Flush()
		if err := w.csv.Error(); err != nil && w.err == nil {
			w.err = fmt.Errorf("writing rows: %w", err)
		}
	}
	return w.err
}

package cli

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
)

// crawlFlags are the settings of crawl.
type crawlFlags struct {
	agentFlags
	timeoutFlag
	paceFlags
	reportFlags
	formatFlag
	signalFlags
	cacheFlags
	configFlag      // shared_flags.go
	concurrencyFlag // shared_flags.go
	patternFlags    // shared_flags.go
	connFlags       // see transport_flags.go
	maxBodyFlag     // see transport_flags.go
	retryFlags      // see transport_flags.go
	outputModeFlags // see feed_flags.go
	stateFlag       // shared_flags.go
	out             string
	perHost         int
	depth           int
	maxPages        int
	maxPerHost      int
	domains         []string
	robotsAge       time.Duration
	spider          string
	skiplogSet      bool         // --skiplog was given (on the command line or in --config)
	sm              sitemapFlags // see inventory.go
	fleet           fleetFlags   // see redis.go
	groups          []FlagGroup  // --metrics, --stats-interval, the program's own
}

func (f *crawlFlags) register(cmd *cobra.Command, spiderName string) {
	fl := cmd.Flags()
	f.agentFlags.register(fl, spiderName)
	f.timeoutFlag.register(fl)
	f.paceFlags.register(fl)
	f.reportFlags.register(fl)
	f.formatFlag.register(fl)
	f.signalFlags.register(fl)
	f.cacheFlags.register(fl)
	f.connFlags.register(fl)
	f.maxBodyFlag.register(fl)
	f.retryFlags.register(fl)
	f.outputModeFlags.register(fl)
	fl.StringVarP(&f.out, "out", "o", "", "write the spider's items to this feed: .jsonl, .json or .csv, optionally .gz; - for stdout (with --format)")
	f.concurrencyFlag.register(fl)
	fl.IntVar(&f.perHost, "per-host", 1, "requests in flight per host (authority) when --delay is 0 and the host has no Crawl-delay; a spaced host always has one")
	fl.IntVar(&f.depth, "depth", 0, "follow links at most this deep from the seeds (0: no limit)")
	fl.IntVar(&f.maxPages, "max-pages", 0, "download at most this many pages (0: no limit)")
	fl.IntVar(&f.maxPerHost, "max-pages-per-host", 0, "download at most this many pages per host (0: no limit)")
	fl.StringArrayVar(&f.domains, "allow-domain", nil, "stay on this domain and its subdomains (repeatable; default: the seeds' hosts)")
	f.patternFlags.register(fl, "follow")
	fl.DurationVar(&f.robotsAge, "robots-max-age", 24*time.Hour, "refetch robots.txt after this long (at most 24h, RFC 9309 §2.4)")
	f.stateFlag.register(fl)
	f.configFlag.register(fl)
	f.sm.register(cmd)
	f.fleet.register(cmd)
	for _, g := range f.groups {
		g.Register(fl)
	}
}

// check validates every setting but the seeds and the outputs' paths.
func (f *crawlFlags) check() error {
	if err := firstError(f.agentFlags.check(), f.timeoutFlag.check(), f.paceFlags.check(), f.reportFlags.check(), f.signalFlags.check(), f.cacheFlags.check(),
		f.concurrencyFlag.check(), f.patternFlags.check(),
		f.connFlags.check(), f.maxBodyFlag.check(), f.retryFlags.check(),
		atLeastN("per-host", f.perHost, 1, "must be at least 1"),
		atLeastN("depth", f.depth, 0, "must be 0 (no limit) or more"),
		atLeastN("max-pages", f.maxPages, 0, "must be 0 (no limit) or more"),
		atLeastN("max-pages-per-host", f.maxPerHost, 0, "must be 0 (no limit) or more"),
		atLeast("robots-max-age", f.robotsAge, time.Nanosecond),
	); err != nil {
		return err
	}
	if f.robotsAge > 24*time.Hour {
		return &exitError{code: 2, err: &flagError{flag: "robots-max-age", value: f.robotsAge.String(),
			want: "at most 24h: RFC 9309 §2.4 says a cached robots.txt should not be used for longer"}}
	}
	if _, err := f.sm.options(); err != nil {
		return err
	}
	for _, g := range f.groups {
		if err := g.Check(); err != nil {
			if _, ok := err.(*exitError); ok {
				return err
			}
			return &exitError{code: 2, err: err}
		}
	}
	return nil
}

// options returns the crawler options of the flags (see optionList).
func (f *crawlFlags) options(l *optionList, stderr io.Writer) {
	l.add("timeout", crawler.WithTimeout(f.timeout))
	f.paceFlags.options(l)
	l.add("concurrency", crawler.WithWorkers(f.workers))
	l.add("per-host", crawler.WithConcurrencyPerHost(f.perHost))
	l.add("depth", crawler.WithMaxDepth(f.depth))
	l.add("max-pages", crawler.WithMaxPages(f.maxPages))
	l.add("max-pages-per-host", crawler.WithMaxPagesPerHost(f.maxPerHost))
	l.add("robots-max-age", crawler.WithRobotsMaxAge(f.robotsAge))
	f.signalFlags.options(l)
	l.add("max-body", crawler.WithMaxBodySize(f.maxBodyFlag.bytes()))
	f.retryFlags.options(l)
	l.always(f.connFlags.crawlerOptions()...)
	if f.userAgent != "" {
		l.always(crawler.WithUserAgent(f.userAgent))
	}
	if len(f.domains) > 0 {
		l.always(crawler.WithAllowedDomains(f.domains...))
	}
	include, exclude := f.patternFlags.compiled()
	if len(include) > 0 {
		l.always(crawler.WithInclude(include...))
	}
	if len(exclude) > 0 {
		l.always(crawler.WithExclude(exclude...))
	}
	smOpts, _ := f.sm.options() // check parsed them
	l.always(smOpts...)
	if lg := f.logger(stderr); lg != nil {
		l.always(crawler.WithLogger(lg))
	}
}

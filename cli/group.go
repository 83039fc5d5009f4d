package cli

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
)

// FlagGroup is a set of crawl flags with what they do beside a crawl: a
// metrics endpoint, a live web page, a periodic log. crawl registers the
// group's flags, calls Check with every other option before any output is
// opened (a refused value exits with status 2 and touches no file), and
// calls Start once the crawler is built, before its outputs are opened and
// it runs; the function Start returns is called when the crawl has ended.
type FlagGroup interface {
	Register(fs *pflag.FlagSet)
	Check() error
	Start(c *crawler.Crawler, a *App) (stop func(), err error)
}

// groupOptions is a FlagGroup that also sets crawler options: crawl
// applies them when it builds the crawler, before Start (--ui keeps the
// request starts its timeline shows).
type groupOptions interface {
	Options() []crawler.Option
}

// watchFlags are --metrics and --stats-interval: what a long job shows
// while it runs. heed's own FlagGroup.
type watchFlags struct {
	metricsFlag // shared_flags.go
	statsEvery  time.Duration
	log         *slog.Logger // the command's report logger (reportAware)
	// authorities bounds the per-authority metric series (off by
	// default: a big crawl touches many hosts).
	authorities int
}

// reportAware is a FlagGroup of heed's that logs through the command's
// report logger (reportFlags.reportLogger); crawl hands it over before
// Start. logsStats says the group keeps periodic log records already.
type reportAware interface {
	setReportLogger(l *slog.Logger)
	logsStats() bool
}

func (w *watchFlags) setReportLogger(l *slog.Logger) { w.log = l }
func (w *watchFlags) logsStats() bool                { return w.statsEvery > 0 }

func (w *watchFlags) Register(fs *pflag.FlagSet) {
	w.metricsFlag.register(fs)
	fs.DurationVar(&w.statsEvery, "stats-interval", 0, "log a record of statistics (msg=stats) to stderr this often, in the --log-format (0: only the summary at the end)")
	fs.IntVar(&w.authorities, "metrics-authorities", 0, `with --metrics, per-authority series for the first N hosts found, the rest summed as authority="other" (0: none)`)
}

func (w *watchFlags) Check() error {
	return firstError(atLeast("stats-interval", w.statsEvery, 0),
		atLeastN("metrics-authorities", w.authorities, 0, "must be 0 (no per-authority series) or more"))
}

func (w *watchFlags) Start(c *crawler.Crawler, a *App) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if w.metrics != "" {
		srv, err := metrics.Listen(w.metrics, c.Stats(), prometheus.Labels{"agent": c.Agent()}, metrics.WithAuthorityLimit(w.authorities))
		if err != nil {
			return stop, &exitError{code: 2, err: fmt.Errorf("--metrics: %w", err)}
		}
		fmt.Fprintf(a.stderr, "metrics: http://%s/metrics\n", srv.Addr())
		stops = append(stops, func() { srv.Close() })
	}
	if w.statsEvery > 0 {
		log := w.log
		if log == nil {
			log = slog.New(slog.NewTextHandler(a.stderr, nil))
		}
		stops = append(stops, logStats(log, c.Stats(), w.statsEvery))
	}
	return stop, nil
}

// startGroups starts every group; the function it returns stops those
// started, last first.
// Stopping more than once is harmless.
func startGroups(groups []FlagGroup, c *crawler.Crawler, a *App) (stop func(), err error) {
	var stops []func()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			for i := len(stops) - 1; i >= 0; i-- {
				stops[i]()
			}
		})
	}
	for _, g := range groups {
		s, err := g.Start(c, a)
		if s != nil {
			stops = append(stops, s)
		}
		if err != nil {
			return stop, err
		}
	}
	return stop, nil
}

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
	"github.com/heedcrawl/heed/feed"
)

// jobFlags are the settings of `heed crawl` for running it as a job: the
// config file, the feed format, metrics and periodic statistics.
type jobFlags struct {
	config     string
	format     string
	metrics    string
	statsEvery time.Duration
}

func (j *jobFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&j.config, "config", "", "read settings from this YAML file (keys are flag names, plus urls); flags given on the command line win")
	fl.StringVar(&j.format, "format", "", "feed format of --out: jsonl, json or csv (default: from the file name; a .gz suffix compresses)")
	fl.StringVar(&j.metrics, "metrics", "", "serve Prometheus metrics on this address at /metrics while crawling, e.g. 127.0.0.1:9090")
	fl.DurationVar(&j.statsEvery, "stats-interval", 0, "print a line of statistics to stderr this often (0: only the summary at the end)")
}

// openFeed opens the item feed named by --out ("-" is standard output),
// its format from --format or the name. It returns nil for no --out.
func (j *jobFlags) openFeed(out string, stdout io.Writer) (*feed.Feed, error) {
	if out == "" {
		if j.format != "" {
			return nil, usageError("--format needs --out")
		}
		return nil, nil
	}
	opts := []feed.Option{feed.WithStdout(stdout)}
	if j.format != "" {
		f, err := feed.ParseFormat(j.format)
		if err != nil {
			return nil, usageError("--format: %v", err)
		}
		opts = append(opts, feed.WithFormat(f))
	} else if _, _, ok := feed.FormatFor(out); !ok {
		if out == "-" {
			return nil, usageError("--out -: name the format with --format (jsonl, json or csv)")
		}
		return nil, usageError("--out %s: cannot tell the format from the name; use .jsonl, .json or .csv (optionally .gz) or --format", out)
	}
	feed, err := feed.Open(out, opts...)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return feed, nil
}

// start begins what runs beside a crawl: the metrics server and the
// periodic statistics line. The function it returns stops them.
func (j *jobFlags) start(c *crawler.Crawler, stderr io.Writer) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if j.metrics != "" {
		srv, err := metrics.Listen(j.metrics, c.Stats(), prometheus.Labels{"agent": c.Agent()})
		if err != nil {
			return stop, &exitError{code: 2, err: fmt.Errorf("--metrics: %w", err)}
		}
		fmt.Fprintf(stderr, "metrics: http://%s/metrics\n", srv.Addr())
		stops = append(stops, func() { srv.Close() })
	}
	if j.statsEvery > 0 {
		stops = append(stops, logStats(stderr, c.Stats(), j.statsEvery))
	}
	return stop, nil
}

// logStats prints the statistics line every interval until stopped: the
// periodic log a long job run without a terminal keeps.
func logStats(w io.Writer, stats *crawler.Stats, every time.Duration) (stop func()) {
	return everyInterval(every, func() {
		fmt.Fprintf(w, "%s stats: %s\n", time.Now().UTC().Format(time.RFC3339), stats.Snapshot().Line())
	}, nil)
}

// summaryWriter is where the summary goes: standard output, unless the
// feed is written there.
func summaryWriter(out string, stdout, stderr io.Writer) io.Writer {
	if out == "-" {
		return stderr
	}
	return stdout
}

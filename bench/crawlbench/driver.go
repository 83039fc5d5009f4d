package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
	"github.com/heedcrawl/heed/internal/testweb"
)

// shape is the generated site a benchmark crawls.
type shape struct {
	Hosts      int     `json:"hosts"`
	Pages      int     `json:"pages_per_host"`
	Bytes      int     `json:"page_bytes"`
	Links      int     `json:"links_per_page"`
	CrawlDelay float64 `json:"crawl_delay"`
	Seed       int64   `json:"seed"`
}

// generated is the site: testweb's benchmark defaults (10% cross-host
// links, 5% links into a disallowed /d/ path) with the shape's sizes.
func (s shape) generated() testweb.Generated {
	g := testweb.DefaultGenerated()
	g.Hosts, g.PagesPerHost, g.PageBytes, g.LinksPerPage = s.Hosts, s.Pages, s.Bytes, s.Links
	g.CrawlDelay, g.Seed = s.CrawlDelay, s.Seed
	return g
}

// benchConfig is one benchmark invocation.
type benchConfig struct {
	Bench        string        `json:"bench"` // "throughput" or "politeness"
	Shape        shape         `json:"shape"`
	Crawlers     []string      `json:"crawlers"`
	Runs         int           `json:"runs"`
	Workers      int           `json:"workers"`
	PerHost      int           `json:"per_host"`
	Timeout      time.Duration `json:"timeout_ns"`
	CollyLimit   string        `json:"colly_limit"`
	CollyVisited string        `json:"colly_visited"`
	ProfileDir   string        `json:"profile_dir,omitempty"`
}

// runResult is one crawl: the child's report and the hit log's.
type runResult struct {
	Crawler string `json:"crawler"`
	Run     int    `json:"run"` // 1-based; 0 for an unmeasured profiling run
	// PagesPerSec is unique pages (hit log) ÷ crawl wall time (child).
	PagesPerSec    float64           `json:"pages_per_sec"`
	ProcessSeconds float64           `json:"process_seconds"` // exec to exit, start-up included
	Child          childResult       `json:"child"`
	Hits           benchkit.HitStats `json:"hits"`
	// RusageMaxRSSKiB is getrusage's ru_maxrss for the child. It is kept
	// for reference only: on Linux it includes the driver's own peak (see
	// peakRSS), so the report uses the child's VmHWM instead.
	RusageMaxRSSKiB int64 `json:"rusage_maxrss_kib"`
	// CPUSeconds is the child's user and system CPU time (getrusage):
	// less sensitive than wall time to other work on a shared machine.
	CPUSeconds float64 `json:"cpu_seconds"`
	// LeadSeconds is the time from the crawl's start to the site's first
	// request; TailSeconds from the last request's arrival to the crawl's
	// end (that response, and the crawler noticing it is done).
	LeadSeconds float64 `json:"lead_seconds"`
	TailSeconds float64 `json:"tail_seconds"`
	// Sends is the spacing of requests as they left the crawler (when
	// recorded): the same check as the hit log's, on the other side of
	// the connection.
	Sends *benchkit.Spacing `json:"sends,omitempty"`
}

// crawlOnce starts a fresh site, runs one crawler against it in a child
// process and reads the hit log. A fresh site per crawl keeps the hit
// logs apart.
func crawlOnce(ctx context.Context, cfg benchConfig, crawler string, run int, profile bool) (runResult, error) {
	res := runResult{Crawler: crawler, Run: run}
	site, err := testweb.StartGenerated(cfg.Shape.generated())
	if err != nil {
		return res, err
	}
	defer site.Close()
	spec := childSpec{
		Crawler: crawler, Seeds: site.Seeds(), Domains: site.Domains(),
		Workers: cfg.Workers, PerHost: cfg.PerHost, Timeout: cfg.Timeout, CollyLimit: cfg.CollyLimit,
		CollyVisited: cfg.CollyVisited,
		RecordSends:  cfg.Shape.CrawlDelay > 0,
	}
	if profile {
		base := filepath.Join(cfg.ProfileDir, fmt.Sprintf("%s-%s-perhost%d", cfg.Bench, crawler, cfg.PerHost))
		spec.CPUProfile, spec.HeapProfile = base+".cpu.pprof", base+".heap.pprof"
	}
	in, err := json.Marshal(spec)
	if err != nil {
		return res, err
	}
	exe, err := os.Executable()
	if err != nil {
		return res, fmt.Errorf("finding the crawlbench binary: %w", err)
	}
	// The child stops itself at the timeout; the driver's own deadline is
	// a backstop for a child that does not.
	cctx, cancel := context.WithTimeout(ctx, cfg.Timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	res.ProcessSeconds = time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.RusageMaxRSSKiB = ru.Maxrss
			res.CPUSeconds = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
	}
	if err != nil {
		return res, fmt.Errorf("%s crawl %d: %w\n%s", crawler, run, err, tail(stderr.Bytes(), 2000))
	}
	if err := json.Unmarshal(stdout.Bytes(), &res.Child); err != nil {
		return res, fmt.Errorf("%s crawl %d: reading the child's result: %w\n%s", crawler, run, err, tail(stderr.Bytes(), 2000))
	}
	site.Close() // every handler has returned: the hit log is complete
	gap := time.Duration(cfg.Shape.CrawlDelay * float64(time.Second))
	res.Hits = benchkit.AnalyseHits(site, heedAgent, gap)
	if res.Child.Sends != nil {
		sp := benchkit.MeasureSpacing(res.Child.Sends, gap)
		res.Sends = &sp
		res.Child.Sends = nil // the hit log is the record; keep the JSON small
	}
	if !res.Hits.First.IsZero() {
		res.LeadSeconds = res.Hits.First.Sub(res.Child.Start).Seconds()
		res.TailSeconds = res.Child.End.Sub(res.Hits.Last).Seconds()
	}
	if res.Child.CrawlSeconds > 0 {
		res.PagesPerSec = float64(res.Hits.UniquePages) / res.Child.CrawlSeconds
	}
	return res, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// runBench runs every crawler cfg.Runs times, interleaved (heed, colly,
// heed, colly, ...) so that the machine's slow spells fall on both, then
// one unmeasured profiling run per crawler when asked. progress receives
// a line per crawl.
func runBench(ctx context.Context, cfg benchConfig, progress io.Writer) ([]runResult, []runResult, error) {
	var runs, profiled []runResult
	for i := 1; i <= cfg.Runs; i++ {
		for _, c := range cfg.Crawlers {
			if err := ctx.Err(); err != nil {
				return runs, profiled, err
			}
			r, err := crawlOnce(ctx, cfg, c, i, false)
			if err != nil {
				return runs, profiled, err
			}
			fmt.Fprintf(progress, "%s run %d: %s\n", c, i, r.line())
			runs = append(runs, r)
		}
	}
	if cfg.ProfileDir != "" {
		if err := os.MkdirAll(cfg.ProfileDir, 0o755); err != nil {
			return runs, profiled, err
		}
		for _, c := range cfg.Crawlers {
			r, err := crawlOnce(ctx, cfg, c, 0, true)
			if err != nil {
				return runs, profiled, err
			}
			fmt.Fprintf(progress, "%s profiling run: %s\n", c, r.line())
			profiled = append(profiled, r)
		}
	}
	return runs, profiled, nil
}

func (r runResult) line() string {
	return fmt.Sprintf("%d unique pages in %.2f s (%.0f pages/s), %d duplicates, robots.txt per authority %d-%d, peak RSS %.1f MiB",
		r.Hits.UniquePages, r.Child.CrawlSeconds, r.PagesPerSec, r.Hits.DuplicateFetches,
		r.Hits.RobotsMin, r.Hits.RobotsMax, float64(r.Child.PeakRSSKiB)/1024)
}

// errIncomplete is returned when a crawl was cut short by its timeout.
var errIncomplete = errors.New("a crawl hit its timeout")

// validateShape starts and stops the site once, so that a bad shape is a
// usage error before any crawl runs.
func validateShape(s shape) error {
	site, err := testweb.StartGenerated(s.generated())
	if err != nil {
		return err
	}
	site.Close()
	return nil
}

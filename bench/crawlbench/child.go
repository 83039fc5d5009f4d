package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

// childEnv marks a process started by the driver to run one crawl. The
// driver re-executes its own binary (the crawlbench program, or the test
// binary in `go test`) with it set, so each crawler runs in a process of
// its own whose memory nothing else shares.
const childEnv = "HEED_CRAWLBENCH_CHILD"

// childSpec is what the driver asks a child to crawl, sent as JSON on the
// child's standard input.
type childSpec struct {
	Crawler string        `json:"crawler"` // "heed", "colly" or "bare"
	Seeds   []string      `json:"seeds"`
	Domains []string      `json:"domains"`
	Workers int           `json:"workers"`  // total requests in flight
	PerHost int           `json:"per_host"` // requests in flight per host
	Timeout time.Duration `json:"timeout_ns"`
	// CollyLimit is "per-host" (one LimitRule per authority, the default)
	// or "star" (a single DomainGlob "*" rule, which colly applies to all
	// hosts together).
	CollyLimit string `json:"colly_limit,omitempty"`
	// CollyVisited is "once" (onceStorage, the default) or "colly"
	// (colly's own InMemoryStorage, to show the duplicates it lets by).
	CollyVisited string `json:"colly_visited,omitempty"`
	// CPUProfile and HeapProfile, when set, are files the child writes
	// pprof profiles to.
	CPUProfile  string `json:"cpu_profile,omitempty"`
	HeapProfile string `json:"heap_profile,omitempty"`
	// RecordSends makes the child log when each request leaves it (see
	// sendLog); off for throughput runs, whose memory it would add to.
	RecordSends bool `json:"record_sends,omitempty"`
}

// childResult is what a child reports on its standard output.
type childResult struct {
	Crawler string `json:"crawler"`
	// CrawlSeconds is the wall time of the crawl alone: from handing the
	// seeds to the crawler until it reports the crawl finished.
	CrawlSeconds float64 `json:"crawl_seconds"`
	// Start and End bound the crawl on the wall clock the site's hit log
	// uses too (both processes read the same system clock), so the report
	// can tell start-up and wind-down from the requests themselves.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// PeakRSSKiB is VmHWM from /proc/self/status at the end: the peak
	// resident set of this process since it was executed.
	PeakRSSKiB int64 `json:"peak_rss_kib"`
	// Pages, Errors and Skipped are the crawler's own counts of
	// responses, failed requests and URLs it refused (robots.txt and
	// scope); the hit log, not these, is what the report uses.
	Pages   int64 `json:"pages"`
	Errors  int64 `json:"errors"`
	Skipped int64 `json:"skipped"`
	// Interrupted reports that the crawl hit its timeout.
	Interrupted bool `json:"interrupted"`
	// HeapPeakBytes is the largest live heap seen while profiling.
	HeapPeakBytes uint64 `json:"heap_peak_bytes,omitempty"`
	// PeakGoroutines and PeakStackBytes are the most goroutines, and the
	// most memory in goroutine stacks, seen by a 50 ms sampler: where a
	// crawler keeps its queue shows here.
	PeakGoroutines int    `json:"peak_goroutines"`
	PeakStackBytes uint64 `json:"peak_stack_bytes"`
	// Sends are the request start times by authority, when asked for.
	Sends map[string][]benchkit.Stamp `json:"sends,omitempty"`
}

// runChild runs one crawl described on in and writes its result to out.
func runChild(in io.Reader, out io.Writer) error {
	var spec childSpec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		return fmt.Errorf("child: reading the spec: %w", err)
	}
	if spec.Timeout <= 0 {
		spec.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), spec.Timeout)
	defer cancel()
	prof, err := startProfiles(spec.CPUProfile, spec.HeapProfile)
	if err != nil {
		return err
	}
	stopSampler := sampleRuntime()
	var sends *sendLog
	if spec.RecordSends {
		sends = &sendLog{}
	}
	var res childResult
	switch spec.Crawler {
	case "heed":
		res, err = crawlHeed(ctx, spec, sends)
	case "colly":
		res, err = crawlColly(ctx, spec, sends)
	case "bare":
		res, err = crawlBare(ctx, spec, sends)
	default:
		err = fmt.Errorf("child: unknown crawler %q", spec.Crawler)
	}
	goroutines, stacks := stopSampler()
	if perr := prof.stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	res.Crawler = spec.Crawler
	if sends != nil {
		res.Sends = sends.byAuthority()
	}
	res.HeapPeakBytes = prof.heapPeak
	res.PeakGoroutines, res.PeakStackBytes = goroutines, stacks
	res.PeakRSSKiB, err = peakRSS()
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(res)
}

// peakRSS reads VmHWM, the peak resident set of this process's address
// space. getrusage's ru_maxrss is not used: on Linux a child started by
// a Go program (clone with CLONE_VM, then exec) inherits its parent's
// high-water mark at exec, so it would report the driver's memory, test
// site included, as the crawler's.
func peakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
			return strconv.ParseInt(v, 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	return 0, errors.New("peak RSS: no VmHWM line in /proc/self/status")
}

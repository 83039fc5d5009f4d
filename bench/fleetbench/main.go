// Command fleetbench measures a heed crawl shared by several heed
// processes through one Redis (heed crawl --redis): the throughput of 1, 2
// and 4 processes with a fixed number of workers each, beside one heed
// process crawling alone without Redis (its in-process frontier and
// pacer), on a generated
// test site whose responses take a while (internal/testweb's
// Generated.Latency), so that the work is waiting, not CPU. It checks the
// fleet's promises on every run from the site's hit log: every expected
// page fetched (duplicates counted), no two requests to one authority
// arriving closer than the interval whichever processes sent them, one
// robots.txt request per authority, and the merged skip logs (heed skiplog
// merge) holding exactly the URLs the site's oracle expects skipped.
//
// It builds the heed binary from the work tree (or takes -heed), starts
// one private redis-server on loopback, and runs the process counts
// interleaved (alone, 1, 2, 4, alone, 1, 2, 4, ...), each run on a fresh site and a
// fresh crawl id. The report gives medians of the noisy measures and the
// worst run of the counts that must hold. See bench/README.md.
//
// fleetbench owns the measurement; it asserts nothing about speed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

// config is one benchmark's settings.
type config struct {
	Procs     []int         `json:"procs"`
	Runs      int           `json:"runs"`
	Workers   int           `json:"workers_per_process"`
	Hosts     int           `json:"hosts"`
	Pages     int           `json:"pages_per_host"`
	PageBytes int           `json:"page_bytes"`
	Links     int           `json:"links_per_page"`
	Latency   time.Duration `json:"latency_ns"`
	Delay     time.Duration `json:"delay_ns"`
	Timeout   time.Duration `json:"run_timeout_ns"`
	Agent     string        `json:"agent"`
	Heed      string        `json:"heed_binary"`
	Redis     string        `json:"redis_server"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(cli(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fleetbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	procs := fs.String("procs", "0,1,2,4", "process counts to compare, comma-separated; 0 is one heed process without Redis (the in-process frontier and pacer), the peer the shared crawl is measured against")
	fs.IntVar(&cfg.Runs, "runs", 3, "interleaved runs of each process count")
	fs.IntVar(&cfg.Workers, "workers", 8, "workers of each process (heed crawl --concurrency)")
	fs.IntVar(&cfg.Hosts, "hosts", 100, "hosts of the generated site")
	fs.IntVar(&cfg.Pages, "pages", 30, "pages per host")
	fs.IntVar(&cfg.PageBytes, "page-bytes", 4096, "bytes per page")
	fs.IntVar(&cfg.Links, "links", 6, "links per page")
	fs.DurationVar(&cfg.Latency, "latency", 50*time.Millisecond, "time every response takes (Generated.Latency)")
	fs.DurationVar(&cfg.Delay, "delay", 20*time.Millisecond, "heed's floor delay per host (--delay): the interval checked at the site")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "longest one run may take")
	fs.StringVar(&cfg.Agent, "agent", "HeedBot", "product token")
	fs.StringVar(&cfg.Heed, "heed", "", "heed binary (default: built from the work tree)")
	fs.StringVar(&cfg.Redis, "redis-server", "", "redis-server binary (default: $HEED_REDIS_SERVER, then PATH, /usr/bin, /usr/local/bin)")
	outDir := fs.String("out", "", "directory for the JSON report (default: none)")
	keep := fs.Bool("keep", false, "keep each run's skip logs and process output")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	for _, p := range strings.Split(*procs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || n > 16 {
			fmt.Fprintf(stderr, "fleetbench: -procs: %q is not a count from 0 to 16\n", p)
			return 2
		}
		cfg.Procs = append(cfg.Procs, n)
	}
	if cfg.Runs < 1 || cfg.Workers < 1 || cfg.Hosts < 1 || cfg.Pages < 1 {
		fmt.Fprintln(stderr, "fleetbench: -runs, -workers, -hosts and -pages must be at least 1")
		return 2
	}
	work, err := os.MkdirTemp("", "fleetbench-")
	if err != nil {
		fmt.Fprintln(stderr, "fleetbench:", err)
		return 1
	}
	if !*keep {
		defer os.RemoveAll(work)
	}
	if cfg.Heed == "" {
		cfg.Heed = filepath.Join(work, "heed")
		build := exec.CommandContext(ctx, "go", "build", "-o", cfg.Heed, "./cmd/heed")
		build.Dir = moduleRoot()
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(stderr, "fleetbench: building heed:", err)
			return 1
		}
	}
	srv, err := startRedis(cfg.Redis, work)
	if err != nil {
		fmt.Fprintln(stderr, "fleetbench:", err)
		return 1
	}
	defer srv.stop()
	cfg.Redis = srv.bin

	loadBefore := benchkit.LoadAverage()
	fmt.Fprintf(stdout, "## fleet: %d hosts × %d pages, %v latency, --delay %v, %d workers per process\n\n",
		cfg.Hosts, cfg.Pages, cfg.Latency, cfg.Delay, cfg.Workers)
	var results []runResult
	for round := 1; round <= cfg.Runs; round++ {
		for _, n := range cfg.Procs {
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "fleetbench: interrupted")
				return 1
			}
			res, err := runOnce(ctx, cfg, srv, n, round, filepath.Join(work, fmt.Sprintf("run-%d-%d", round, n)))
			if err != nil {
				fmt.Fprintf(stderr, "fleetbench: %d processes, run %d: %v\n", n, round, err)
				return 1
			}
			fmt.Fprintf(stderr, "run %d, %s: %d pages in %.2f s (%.1f pages/s; by process %v), %d gap violations, %d duplicates, %d missing, skip log %s; load %s\n",
				round, procLabel(n), res.Hits.UniquePages, res.WallSeconds, res.PagesPerSec, res.ProcessPages, res.Hits.GapViolations,
				res.Hits.DuplicateFetches, res.Hits.Missing, res.SkipCheck, benchkit.LoadAverage())
			results = append(results, res)
		}
	}
	sums := summarise(cfg, results)
	writeReport(stdout, cfg, sums)
	fmt.Fprintf(stdout, "\nload average before: %s, after: %s; %d CPUs\n", loadBefore, benchkit.LoadAverage(), runtime.NumCPU())
	if *outDir != "" {
		if err := writeJSON(*outDir, cfg, results, sums, loadBefore); err != nil {
			fmt.Fprintln(stderr, "fleetbench:", err)
			return 1
		}
	}
	if *keep {
		fmt.Fprintln(stderr, "runs kept in", work)
	}
	return 0
}

// moduleRoot finds the directory of heed's go.mod from the working
// directory up.
func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func writeJSON(dir string, cfg config, runs []runResult, sums []summary, loadBefore string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rev, _ := exec.Command("git", "-C", moduleRoot(), "rev-parse", "--short", "HEAD").Output()
	doc := map[string]any{
		"config": cfg, "runs": runs, "summary": sums,
		"go": runtime.Version(), "cpus": runtime.NumCPU(), "commit": strings.TrimSpace(string(rev)),
		"load_before": loadBefore, "load_after": benchkit.LoadAverage(), "time": time.Now().UTC().Format(time.RFC3339),
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.Join(dir, "fleet-"+time.Now().UTC().Format("20060102-150405")+".json")
	return os.WriteFile(name, b, 0o644)
}

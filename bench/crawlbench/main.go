// Command crawlbench measures heed's whole crawls of the generated test
// site (internal/testweb) and writes the figures heed's README quotes.
//
// Two benchmarks:
//
//	crawlbench throughput   heed beside a bare colly v2 async crawler and
//	                        a bare Go crawler (the machine's practical
//	                        limit) on 50 hosts × 400 pages, no floor
//	                        delay: unique pages/s, CPU per 1,000 pages,
//	                        peak RSS, duplicate fetches and robots.txt
//	                        requests per authority
//	crawlbench politeness   heed on 20 hosts × 50 pages with Crawl-delay
//	                        0.1: wall time against the ideal, and request
//	                        spacing per authority
//
// The driver serves the site in its own process and runs each crawl in a
// child process (its own binary, re-executed), so a crawler's peak memory
// is its own. Every count comes from the site's hit log, not from the
// crawlers. Runs are interleaved and medians reported; see bench/README.md.
//
// crawlbench owns the measurement and the two peers; it deliberately does
// not tune heed or colly, and it asserts nothing about speed (its test
// checks behaviour only).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

func main() {
	if os.Getenv(childEnv) != "" {
		if err := runChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(cli(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: crawlbench throughput|politeness [flags]

  throughput   heed beside a colly crawler and a bare Go crawler, no floor delay
  politeness   heed under a robots.txt Crawl-delay

Run "crawlbench <benchmark> -h" for its flags.
`

// cli runs one benchmark and returns the exit code: 0 when it ran (goals
// met or not), 1 when a crawl failed, 2 for a usage error.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cfg, outDir, err := parseFlags(args[0], args[1:], stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	loadBefore := benchkit.LoadAverage()
	runs, profiled, err := runBench(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "crawlbench:", err)
		return 1
	}
	sums := summarise(cfg, runs)
	gs := goals(cfg, runs, sums)
	env := currentEnvironment()
	env.LoadBefore, env.LoadAfter = loadBefore, benchkit.LoadAverage()
	writeMarkdown(stdout, cfg, runs, sums, gs)
	fmt.Fprintf(stdout, "\n%s, %d CPUs, GOMAXPROCS %d; load average before %s, after %s\n",
		env.GoVersion, env.NumCPU, env.GOMAXPROCS, env.LoadBefore, env.LoadAfter)
	path, err := writeJSON(outDir, cfg, env, runs, profiled, sums, gs)
	if err != nil {
		fmt.Fprintln(stderr, "crawlbench:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nresults: %s\n", path)
	for _, s := range sums {
		if s.Interrupted > 0 {
			fmt.Fprintf(stderr, "crawlbench: %s: %d runs %v\n", s.Crawler, s.Interrupted, errIncomplete)
			return 1
		}
	}
	return 0
}

func parseFlags(bench string, args []string, stderr io.Writer) (benchConfig, string, error) {
	cfg := benchConfig{Bench: bench, Shape: shape{Bytes: 8 << 10, Links: 10, Seed: 1}, CollyLimit: "per-host", CollyVisited: "once"}
	crawlers := "heed,colly,bare"
	perHost := 8
	switch bench {
	case "throughput":
		cfg.Shape.Hosts, cfg.Shape.Pages = 50, 400
	case "politeness":
		cfg.Shape.Hosts, cfg.Shape.Pages, cfg.Shape.CrawlDelay = 20, 50, 0.1
		crawlers = "heed"
		// heed's default: one request in flight per host. -per-host 8 is
		// the throughput setting; bench/crawl.sh runs both.
		perHost = 1
	default:
		return cfg, "", fmt.Errorf("unknown benchmark %q\n%s", bench, usage)
	}
	fs := flag.NewFlagSet("crawlbench "+bench, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.Shape.Hosts, "hosts", cfg.Shape.Hosts, "hosts on the generated site")
	fs.IntVar(&cfg.Shape.Pages, "pages", cfg.Shape.Pages, "pages per host")
	fs.IntVar(&cfg.Shape.Bytes, "bytes", cfg.Shape.Bytes, "bytes per page")
	fs.IntVar(&cfg.Shape.Links, "links", cfg.Shape.Links, "links per page")
	fs.Float64Var(&cfg.Shape.CrawlDelay, "crawl-delay", cfg.Shape.CrawlDelay, "Crawl-delay in every robots.txt, seconds (0: none)")
	fs.Int64Var(&cfg.Shape.Seed, "seed", cfg.Shape.Seed, "seed of the generated site")
	fs.StringVar(&crawlers, "crawlers", crawlers, "comma-separated crawlers to run: heed, colly, bare")
	fs.IntVar(&cfg.Runs, "runs", 3, "measured runs per crawler, interleaved")
	fs.IntVar(&cfg.Workers, "workers", 32, "requests in flight in all: heed's workers, the transport's budget for both")
	fs.IntVar(&cfg.PerHost, "per-host", perHost, "requests in flight per host")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "time limit of one crawl")
	fs.StringVar(&cfg.CollyLimit, "colly-limit", cfg.CollyLimit, `colly's limit rules: "per-host" (a LimitRule per authority) or "star" (one DomainGlob "*" rule, shared by all hosts)`)
	fs.StringVar(&cfg.CollyVisited, "colly-visited", cfg.CollyVisited, `colly's visited set: "once" (race-free test-and-set) or "colly" (colly's InMemoryStorage, which lets duplicates by)`)
	fs.StringVar(&cfg.ProfileDir, "profile", "", "after the measured runs, one more run per crawler writing CPU and peak-heap profiles to this directory")
	outDir := fs.String("out", filepath.Join("bench", "out"), "directory for the JSON results")
	if err := fs.Parse(args); err != nil {
		return cfg, "", err
	}
	if fs.NArg() > 0 {
		return cfg, "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, c := range strings.Split(crawlers, ",") {
		c = strings.TrimSpace(c)
		if c != "heed" && c != "colly" && c != "bare" {
			return cfg, "", fmt.Errorf("unknown crawler %q (heed, colly or bare)", c)
		}
		cfg.Crawlers = append(cfg.Crawlers, c)
	}
	switch {
	case cfg.Runs < 1 || cfg.Runs > 100:
		return cfg, "", fmt.Errorf("-runs %d not in [1, 100]", cfg.Runs)
	case cfg.Workers < 1 || cfg.Workers > 10000:
		return cfg, "", fmt.Errorf("-workers %d not in [1, 10000]", cfg.Workers)
	case cfg.PerHost < 1 || cfg.PerHost > 1000:
		return cfg, "", fmt.Errorf("-per-host %d not in [1, 1000]", cfg.PerHost)
	case cfg.Timeout <= 0 || cfg.Timeout > time.Hour:
		return cfg, "", fmt.Errorf("-timeout %v not in (0, 1h]", cfg.Timeout)
	case cfg.CollyLimit != "per-host" && cfg.CollyLimit != "star":
		return cfg, "", fmt.Errorf(`-colly-limit %q: "per-host" or "star"`, cfg.CollyLimit)
	case cfg.CollyVisited != "once" && cfg.CollyVisited != "colly":
		return cfg, "", fmt.Errorf(`-colly-visited %q: "once" or "colly"`, cfg.CollyVisited)
	}
	// The site checks its own shape (hosts, pages, sizes) when it starts.
	if err := validateShape(cfg.Shape); err != nil {
		return cfg, "", err
	}
	return cfg, *outDir, nil
}

// buildRevision names the commit measured when the binary was built from
// an export rather than a git work tree (bench/crawl.sh --rev sets it).
var buildRevision string

// environment describes where the figures were measured.
type environment struct {
	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Revision   string `json:"vcs_revision,omitempty"`
	Modified   bool   `json:"vcs_modified,omitempty"`
	Time       string `json:"time"`
	// LoadBefore and LoadAfter are /proc/loadavg around the benchmark:
	// the machine is shared, and a high load explains slow, noisy runs.
	LoadBefore string `json:"loadavg_before,omitempty"`
	LoadAfter  string `json:"loadavg_after,omitempty"`
}

func currentEnvironment() environment {
	e := environment{
		GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Time: time.Now().UTC().Format(time.RFC3339),
	}
	if buildRevision != "" {
		e.Revision = buildRevision
	} else if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				e.Revision = s.Value
			case "vcs.modified":
				e.Modified = s.Value == "true"
			}
		}
	}
	return e
}

func writeJSON(dir string, cfg benchConfig, env environment, runs, profiled []runResult, sums []summary, gs []goal) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	doc := struct {
		Config      benchConfig `json:"config"`
		Environment environment `json:"environment"`
		Summary     []summary   `json:"summary"`
		Goals       []goal      `json:"goals"`
		Runs        []runResult `json:"runs"`
		Profiled    []runResult `json:"profiled,omitempty"`
	}{cfg, env, sums, gs, runs, profiled}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.json", cfg.Bench, time.Now().Format("20060102-150405")))
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

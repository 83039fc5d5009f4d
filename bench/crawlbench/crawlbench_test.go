package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

// TestMain lets the test binary be the driver's child: crawlOnce
// re-executes os.Executable(), which under `go test` is this binary.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := runChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSmokeBothCrawlers runs the throughput benchmark end to end on a
// tiny site, the three crawlers in child processes, and checks what each
// crawl did according to the site's hit log. It asserts behaviour only:
// no speed or memory figure is checked.
func TestSmokeBothCrawlers(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"throughput", "-hosts", "4", "-pages", "60", "-bytes", "2048", "-links", "10",
		"-runs", "1", "-timeout", "60s", "-out", out}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if code := cli(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "| heed | 1 |") || !strings.Contains(stdout.String(), "| colly | 1 |") ||
		!strings.Contains(stdout.String(), "| bare | 1 |") {
		t.Errorf("the report has no row for each crawler:\n%s", &stdout)
	}

	files, err := filepath.Glob(filepath.Join(out, "throughput-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("JSON results: %v, %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []runResult `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 3 {
		t.Fatalf("%d runs recorded, want 3", len(doc.Runs))
	}
	for _, r := range doc.Runs {
		h := r.Hits
		t.Logf("%s: %+v", r.Crawler, h)
		if h.UniquePages == 0 || h.Missing != 0 || h.Unexpected != 0 {
			t.Errorf("%s: %d pages fetched, %d expected pages missing, %d unexpected", r.Crawler, h.UniquePages, h.Missing, h.Unexpected)
		}
		if h.DuplicateFetches != 0 {
			t.Errorf("%s fetched %d pages more than once", r.Crawler, h.DuplicateFetches)
		}
		if h.Authorities != 4 {
			t.Errorf("%s: %d authorities, want 4", r.Crawler, h.Authorities)
		}
		if r.Child.PeakRSSKiB <= 0 || r.Child.PeakGoroutines <= 0 || r.Child.PeakStackBytes == 0 {
			t.Errorf("%s: peak RSS %d KiB, %d goroutines, %d B of stacks reported", r.Crawler,
				r.Child.PeakRSSKiB, r.Child.PeakGoroutines, r.Child.PeakStackBytes)
		}
		if r.Crawler == "heed" && (h.RobotsMin != 1 || h.RobotsMax != 1 || h.RobotsNotOne != 0) {
			// colly's robots.txt check races (several goroutines may fetch
			// the same file); heed's must not.
			t.Errorf("heed: robots.txt requests per authority %d to %d, want exactly 1", h.RobotsMin, h.RobotsMax)
		}
		if r.Crawler == "bare" && h.RobotsRequests != 0 {
			// The bare crawler knows the rules in advance.
			t.Errorf("bare: %d robots.txt requests, want none", h.RobotsRequests)
		}
		if r.CPUSeconds <= 0 || r.cpuPer1000() <= 0 {
			t.Errorf("%s: CPU %v s, %v s per 1,000 pages", r.Crawler, r.CPUSeconds, r.cpuPer1000())
		}
	}
}

func TestSummariseAndGoals(t *testing.T) {
	cfg := benchConfig{Bench: "throughput", Crawlers: []string{"heed", "colly", "bare"}, Shape: shape{Pages: 10}}
	run := func(round int, c string, pps float64, rssKiB int64, dups, robotsMax int, cpu float64) runResult {
		return runResult{Crawler: c, Run: round, PagesPerSec: pps, CPUSeconds: cpu, Child: childResult{PeakRSSKiB: rssKiB, CrawlSeconds: 1},
			Hits: benchkit.HitStats{UniquePages: 100, DuplicateFetches: dups, RobotsMin: 1, RobotsMax: robotsMax}}
	}
	runs := []runResult{
		run(1, "heed", 300, 10240, 0, 1, 2), run(1, "colly", 200, 40960, 5, 3, 9), run(1, "bare", 400, 8192, 0, 0, 1),
		run(2, "heed", 100, 10240, 0, 1, 2), run(2, "colly", 100, 40960, 0, 1, 9), run(2, "bare", 100, 8192, 0, 0, 1),
		run(3, "heed", 250, 20480, 1, 1, 3), run(3, "colly", 150, 30720, 0, 2, 9), run(3, "bare", 300, 8192, 0, 0, 2),
	}
	sums := summarise(cfg, runs)
	if len(sums) != 3 {
		t.Fatalf("%d summaries", len(sums))
	}
	h, c, b := sums[0], sums[1], sums[2]
	if h.PagesPerSec != 250 || c.PagesPerSec != 150 || h.PeakRSSMiB != 10 || c.PeakRSSMiB != 40 {
		t.Errorf("medians: heed %v pages/s %v MiB, colly %v pages/s %v MiB", h.PagesPerSec, h.PeakRSSMiB, c.PagesPerSec, c.PeakRSSMiB)
	}
	if h.CPUPer1000 != 20 || b.CPUPer1000 != 10 || c.CPUPer1000 != 90 {
		t.Errorf("CPU s per 1,000 pages: heed %v, bare %v, colly %v", h.CPUPer1000, b.CPUPer1000, c.CPUPer1000)
	}
	if h.MaxDuplicates != 1 || c.MaxDuplicates != 5 || c.RobotsMax != 3 {
		t.Errorf("worst runs: heed %d duplicates, colly %d duplicates, %d robots.txt", h.MaxDuplicates, c.MaxDuplicates, c.RobotsMax)
	}
	met := map[string]bool{}
	values := map[string]float64{}
	for _, g := range goals(cfg, runs, sums) {
		met[g.Name], values[g.Name] = g.Met, g.Value
	}
	// Per-round pages/s ratios to colly 1.5, 1.0 and 1.67; RSS ratios 0.25,
	// 0.25, 0.67. To bare: pages/s 0.75, 1.0, 0.83; CPU per page 2, 2, 1.5.
	for name, want := range map[string]float64{
		"unique pages/s, heed ÷ colly (median of per-round ratios)": 1.5,
		"peak RSS, heed ÷ colly (median of per-round ratios)":       0.25,
		"unique pages/s, heed ÷ bare (median of per-round ratios)":  250.0 / 300,
		"CPU per page, heed ÷ bare (ratio of medians)":              2,
		"CPU per page, heed ÷ bare (median of per-round ratios)":    2,
		"peak RSS, heed ÷ bare (ratio of medians)":                  1.25,
	} {
		if v := values[name]; math.Abs(v-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	want := map[string]bool{
		"unique pages/s, heed ÷ colly (ratio of medians)":           false, // 250/150 < 3
		"unique pages/s, heed ÷ colly (median of per-round ratios)": false,
		"peak RSS, heed ÷ colly (ratio of medians)":                 true, // 10/40
		"peak RSS, heed ÷ colly (median of per-round ratios)":       true,
		"unique pages/s, heed ÷ bare (ratio of medians)":            true, // 250/300 ≥ 0.8
		"CPU per page, heed ÷ bare (ratio of medians)":              false,
		"peak RSS, heed ÷ bare (ratio of medians)":                  true, // 10/8 ≤ 1.3
		"robots.txt requests per authority, heed (all runs)":        true,
		"duplicate page fetches, heed (worst run)":                  false,
		"expected pages not fetched, heed (worst run)":              true,
	}
	for name, w := range want {
		if got, ok := met[name]; !ok || got != w {
			t.Errorf("goal %q met = %v (present %v), want %v", name, got, ok, w)
		}
	}
}

func TestPolitenessGoals(t *testing.T) {
	cfg := benchConfig{Bench: "politeness", Crawlers: []string{"heed"}, Shape: shape{Pages: 50, CrawlDelay: 0.1}}
	runs := []runResult{{Crawler: "heed", Child: childResult{CrawlSeconds: 5.3}, Hits: benchkit.HitStats{RobotsMin: 1, RobotsMax: 1}}}
	sums := summarise(cfg, runs)
	if got := sums[0].RatioToIdealRobot; math.Abs(got-5.3/5.1) > 1e-9 {
		t.Errorf("wall ÷ ideal(51) = %v", got)
	}
	if got := sums[0].RatioToIdeal; math.Abs(got-5.3/5.0) > 1e-9 {
		t.Errorf("wall ÷ ideal(50) = %v", got)
	}
	for _, g := range goals(cfg, runs, sums) {
		if !g.Met {
			t.Errorf("goal %q not met: %s", g.Name, g.Measured)
		}
	}
}

func TestOnceStorageLetsEachIDThroughOnce(t *testing.T) {
	s := &onceStorage{}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	const ids, goroutines = 200, 8
	var first atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := uint64(0); id < ids; id++ {
				if seen, _ := s.IsVisited(id); !seen {
					first.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if first.Load() != ids {
		t.Errorf("%d first visits for %d ids", first.Load(), ids)
	}
}

func TestCollyLimits(t *testing.T) {
	spec := childSpec{PerHost: 8, Seeds: []string{"http://127.0.0.2:1000/", "http://127.0.0.3:1001/", "http://127.0.0.2:1000/x"}}
	rules, err := collyLimits(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].DomainGlob != "127.0.0.2:1000" || rules[1].Parallelism != 8 {
		t.Errorf("per-host rules %+v", rules)
	}
	spec.CollyLimit = "star"
	if rules, err := collyLimits(spec); err != nil || len(rules) != 1 || rules[0].DomainGlob != "*" {
		t.Errorf("star rules %+v, %v", rules, err)
	}
	spec.CollyLimit = "bogus"
	if _, err := collyLimits(spec); err == nil {
		t.Error("an unknown limit mode was accepted")
	}
	spec.CollyLimit, spec.Seeds = "", []string{"::not a url"}
	if _, err := collyLimits(spec); err == nil {
		t.Error("a bad seed was accepted")
	}
}

// TestBudgetTransportCapsRequestsInFlight: a slot is held until the body
// is closed, so no more than the budget are ever out at once.
func TestBudgetTransportCapsRequestsInFlight(t *testing.T) {
	var inFlight, peak atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	const budget = 3
	sends := &sendLog{}
	client := &http.Client{Transport: newTransport(8, budget, sends), Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > budget || p < 1 {
		t.Errorf("peak in flight %d, budget %d", p, budget)
	}
	got := sends.byAuthority()
	if len(got) != 1 || len(got[srv.URL]) != 12 {
		t.Errorf("send log %v, want 12 requests to %s", got, srv.URL)
	}
}

func TestParseFlagsRejectsBadInput(t *testing.T) {
	tests := [][]string{
		{"sideways"},
		{"throughput", "-runs", "0"},
		{"throughput", "-crawlers", "heed,scrapy"},
		{"throughput", "-colly-limit", "some"},
		{"throughput", "-colly-visited", "twice"},
		{"throughput", "-hosts", "0"},
		{"throughput", "-workers", "-1"},
		{"politeness", "-crawl-delay", "-1"},
		{"throughput", "extra"},
	}
	for _, args := range tests {
		var stderr bytes.Buffer
		if code := cli(context.Background(), args, io.Discard, &stderr); code != 2 {
			t.Errorf("%q: exit code %d, want 2 (%s)", args, code, &stderr)
		}
	}
}

func TestPeakRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status here")
	}
	kib, err := peakRSS()
	if err != nil || kib <= 0 {
		t.Errorf("peakRSS = %d, %v", kib, err)
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// runResult is one crawl by n processes.
type runResult struct {
	Procs int `json:"procs"`
	Round int `json:"round"`
	// WallSeconds runs from starting the first process to the exit of
	// the last; PagesPerSec is unique pages ÷ WallSeconds.
	WallSeconds float64 `json:"wall_seconds"`
	PagesPerSec float64 `json:"pages_per_sec"`
	// CPUSeconds adds up the heed processes' user and system time;
	// RedisCPUSeconds is the server's during the run.
	CPUSeconds      float64 `json:"cpu_seconds"`
	RedisCPUSeconds float64 `json:"redis_cpu_seconds"`
	// RedisCommands and RedisRoundTrips are what the processes asked of
	// Redis during the run (see countingProxy): a script call is one
	// command; a pipeline is one round trip.
	RedisCommands   int64 `json:"redis_commands"`
	RedisRoundTrips int64 `json:"redis_round_trips"`
	// RedisByCommand counts the commands by name (EVALSHA by script).
	RedisByCommand map[string]int64 `json:"redis_by_command,omitempty"`
	Hits           benchkit.HitStats
	// SkipCheck is "ok" when the merged skip logs hold exactly the URLs
	// the oracle expects skipped, with their reasons; otherwise it says
	// what differs. SkipDuplicates counts records dropped by the merge.
	SkipCheck string `json:"skip_check"`
	// ProcessPages is each process's own count of pages (its summary's
	// "pages:" line): how the work was shared.
	ProcessPages   []int `json:"process_pages"`
	SkipRecords    int   `json:"skip_records"`
	SkipDuplicates int   `json:"skip_duplicates"`
}

// runOnce crawls a fresh site with n heed processes sharing one crawl id
// through Redis, or with one heed process without Redis for n = 0.
func runOnce(ctx context.Context, cfg config, srv *redisServer, n, round int, dir string) (runResult, error) {
	res := runResult{Procs: n, Round: round}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	site, err := testweb.StartGenerated(testweb.Generated{
		Hosts: cfg.Hosts, PagesPerHost: cfg.Pages, PageBytes: cfg.PageBytes, LinksPerPage: cfg.Links,
		CrossHostFraction: 0.1, DisallowFraction: 0.05, Latency: cfg.Latency, Seed: 1,
	})
	if err != nil {
		return res, err
	}
	defer site.Close()
	args := []string{"crawl", "--agent", cfg.Agent,
		"--delay", cfg.Delay.String(), "--concurrency", fmt.Sprint(cfg.Workers), "--per-host", "1",
		"--progress", "never", "--timeout", "30s"}
	if n > 0 {
		id := fmt.Sprintf("fleetbench-%d-%d-%d", time.Now().UnixNano(), round, n)
		args = append(args, "--redis", srv.url(), "--crawl-id", id)
	}
	for _, d := range site.Domains() {
		args = append(args, "--allow-domain", d)
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	redisBefore := srv.cpuSeconds(rctx)
	cmdsBefore, tripsBefore := srv.proxy.counts()
	namesBefore := srv.proxy.byCommand()
	var logs []string
	var cmds []*exec.Cmd
	start := time.Now()
	for i := 0; i < max(n, 1); i++ {
		skip := filepath.Join(dir, fmt.Sprintf("skipped-%d.jsonl", i))
		logs = append(logs, skip)
		a := append(append([]string(nil), args...), "--skiplog", skip)
		cmd := exec.CommandContext(rctx, cfg.Heed, append(a, site.Seeds()...)...)
		out, err := os.Create(filepath.Join(dir, fmt.Sprintf("out-%d.txt", i)))
		if err != nil {
			return res, err
		}
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			return res, err
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	for i, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cmd.Wait()
		}()
	}
	wg.Wait()
	res.WallSeconds = time.Since(start).Seconds()
	res.RedisCPUSeconds = srv.cpuSeconds(ctx) - redisBefore
	cmdsAfter, tripsAfter := srv.proxy.counts()
	res.RedisCommands, res.RedisRoundTrips = cmdsAfter-cmdsBefore, tripsAfter-tripsBefore
	for name, n := range srv.proxy.byCommand() {
		if d := n - namesBefore[name]; d > 0 {
			if res.RedisByCommand == nil {
				res.RedisByCommand = map[string]int64{}
			}
			res.RedisByCommand[name] = d
		}
	}
	for i, cmd := range cmds {
		if errs[i] != nil {
			out, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out-%d.txt", i)))
			return res, fmt.Errorf("process %d: %v\n%s", i, errs[i], lastLines(out, 20))
		}
		res.CPUSeconds += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		out, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out-%d.txt", i)))
		res.ProcessPages = append(res.ProcessPages, pagesLine(out))
	}
	site.Close()
	res.Hits = benchkit.AnalyseHits(site, cfg.Agent, cfg.Delay)
	res.PagesPerSec = float64(res.Hits.UniquePages) / res.WallSeconds
	res.SkipCheck, res.SkipRecords, res.SkipDuplicates, err = checkSkips(ctx, cfg, site, logs, dir)
	return res, err
}

func lastLines(b []byte, n int) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, []byte("\n"))
}

// checkSkips merges the processes' skip logs with heed skiplog merge and
// compares the result with the oracle's skipped set.
func checkSkips(ctx context.Context, cfg config, site *testweb.Site, logs []string, dir string) (string, int, int, error) {
	merged := filepath.Join(dir, "skipped.jsonl")
	cmd := exec.CommandContext(ctx, cfg.Heed, append([]string{"skiplog", "merge", "--out", merged}, logs...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", 0, 0, fmt.Errorf("heed skiplog merge: %v\n%s", err, out.String())
	}
	f, err := os.Open(merged)
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	exp := site.Expected(cfg.Agent)
	got := map[string]skiplog.Reason{}
	if err := skiplog.Read(f, func(r *skiplog.Record) error { got[r.URL] = r.Reason; return nil }); err != nil {
		return "", 0, 0, err
	}
	// The CLI prints the duplicates it dropped; the same merge in
	// process gives the number without parsing its summary.
	var ins []io.Reader
	for _, l := range logs {
		lf, err := os.Open(l)
		if err != nil {
			return "", 0, 0, err
		}
		defer lf.Close()
		ins = append(ins, lf)
	}
	st, err := skiplog.Merge(io.Discard, ins...)
	if err != nil {
		return "", 0, 0, err
	}
	missing, unexpected, wrong := 0, 0, 0
	for u, want := range exp.Skipped {
		r, ok := got[u]
		switch {
		case !ok:
			missing++
		case r != want.Reason:
			wrong++
		}
	}
	for u := range got {
		if _, ok := exp.Skipped[u]; !ok {
			unexpected++
		}
	}
	check := "ok"
	if missing+unexpected+wrong > 0 {
		check = fmt.Sprintf("%d missing, %d unexpected, %d with another reason", missing, unexpected, wrong)
	}
	return check, len(got), st.Duplicates, nil
}

// procLabel names a process count in reports.
func procLabel(n int) string {
	if n == 0 {
		return "1 alone (no redis)"
	}
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}

// pagesLine reads the page count of a heed crawl summary ("pages: N (...").
func pagesLine(out []byte) int {
	for _, line := range bytes.Split(out, []byte("\n")) {
		var n int
		if _, err := fmt.Sscanf(string(line), "pages: %d", &n); err == nil {
			return n
		}
	}
	return -1
}

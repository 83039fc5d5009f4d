package main

import (
	"fmt"
	"io"
	"math"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

// summary is one process count's runs: medians of what varies with the
// machine's noise, the worst run of what must hold every time.
type summary struct {
	Procs           int     `json:"procs"`
	Runs            int     `json:"runs"`
	WallSeconds     float64 `json:"wall_seconds_median"`
	PagesPerSec     float64 `json:"pages_per_sec_median"`
	Speedup         float64 `json:"speedup_over_one_process"` // pages/s ÷ that of one process through Redis (medians)
	CPUSeconds      float64 `json:"cpu_seconds_median"`
	RedisCPUSeconds float64 `json:"redis_cpu_seconds_median"`
	UniquePages     float64 `json:"unique_pages_median"`
	// TripsPerPage and CommandsPerPage are Redis round trips and commands
	// per unique page (medians); 0 for the crawl alone.
	TripsPerPage    float64 `json:"redis_round_trips_per_page_median"`
	CommandsPerPage float64 `json:"redis_commands_per_page_median"`
	benchkit.Worst
	SkipChecksFailed int `json:"skip_checks_failed"`
	MaxSkipDups      int `json:"skip_duplicates_max"`
}

func summarise(cfg config, runs []runResult) []summary {
	var out []summary
	for _, n := range cfg.Procs {
		s := summary{Procs: n}
		var wall, pps, cpu, rcpu, pages, trips, cmds []float64
		for _, r := range runs {
			if r.Procs != n {
				continue
			}
			s.Runs++
			wall = append(wall, r.WallSeconds)
			pps = append(pps, r.PagesPerSec)
			cpu = append(cpu, r.CPUSeconds)
			rcpu = append(rcpu, r.RedisCPUSeconds)
			pages = append(pages, float64(r.Hits.UniquePages))
			if r.Hits.UniquePages > 0 {
				trips = append(trips, float64(r.RedisRoundTrips)/float64(r.Hits.UniquePages))
				cmds = append(cmds, float64(r.RedisCommands)/float64(r.Hits.UniquePages))
			}
			s.Worst.Add(r.Hits)
			s.MaxSkipDups = max(s.MaxSkipDups, r.SkipDuplicates)
			if r.SkipCheck != "ok" {
				s.SkipChecksFailed++
			}
		}
		s.WallSeconds, s.PagesPerSec, s.CPUSeconds = benchkit.Median(wall), benchkit.Median(pps), benchkit.Median(cpu)
		s.RedisCPUSeconds, s.UniquePages = benchkit.Median(rcpu), benchkit.Median(pages)
		if len(trips) > 0 {
			s.TripsPerPage, s.CommandsPerPage = benchkit.Median(trips), benchkit.Median(cmds)
		}
		out = append(out, s)
	}
	base := math.NaN()
	for _, s := range out {
		if s.Procs == 1 {
			base = s.PagesPerSec
		}
	}
	for i := range out {
		out[i].Speedup = out[i].PagesPerSec / base
	}
	return out
}

func writeReport(w io.Writer, cfg config, sums []summary) {
	fmt.Fprintf(w, "medians of %d interleaved runs; worst run for the counts that must hold\n\n", cfg.Runs)
	benchkit.TableHeader(w, "", "processes", "pages", "wall s", "pages/s", "× 1 process", "heed CPU s", "redis CPU s",
		"redis round trips / page", "redis commands / page", "dup fetches", "missing", "robots≠1", "gap violations", "min gap s", "skip log")
	for _, s := range sums {
		skip := "exact"
		if s.SkipChecksFailed > 0 {
			skip = fmt.Sprintf("%d runs differ", s.SkipChecksFailed)
		}
		if s.MaxSkipDups > 0 {
			skip += fmt.Sprintf(", ≤%d dups merged", s.MaxSkipDups)
		}
		fmt.Fprintf(w, "| %s | %.0f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %d | %d | %d | %.3f | %s |\n",
			procLabel(s.Procs), s.UniquePages, s.WallSeconds, s.PagesPerSec, s.Speedup, s.CPUSeconds, s.RedisCPUSeconds,
			s.TripsPerPage, s.CommandsPerPage,
			s.MaxDuplicates, s.MaxMissing+s.MaxUnexpected, s.MaxRobotsNotOne, s.MaxGapViolations, s.MinGapSeconds, skip)
	}
}

package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

// summary is one crawler's runs reduced to what the report shows: medians
// of the measures that vary with the machine's noise (time, speed,
// memory), and the worst run of the ones that must hold every time
// (duplicates, robots.txt counts, missing pages, gap violations).
type summary struct {
	Crawler      string  `json:"crawler"`
	Runs         int     `json:"runs"`
	UniquePages  float64 `json:"unique_pages_median"`
	CrawlSeconds float64 `json:"crawl_seconds_median"`
	PagesPerSec  float64 `json:"pages_per_sec_median"`
	PeakRSSMiB   float64 `json:"peak_rss_mib_median"`
	CPUSeconds   float64 `json:"cpu_seconds_median"`
	// CPUPer1000 is CPU seconds per 1,000 unique pages: the cost of a
	// page, which other work on the machine disturbs less than speed.
	CPUPer1000     float64 `json:"cpu_seconds_per_1000_pages_median"`
	PeakGoroutines float64 `json:"peak_goroutines_median"`
	PeakStackMiB   float64 `json:"peak_stack_mib_median"`
	benchkit.Worst
	RobotsMin         int     `json:"robots_per_authority_min"`
	RobotsMax         int     `json:"robots_per_authority_max"`
	MaxSendViolations int     `json:"send_gap_violations_max"`
	MinSendGapSeconds float64 `json:"min_send_gap_seconds"`
	SpanSeconds       float64 `json:"span_seconds_median"`
	MedianGapSeconds  float64 `json:"median_gap_seconds_median"`
	P95GapSeconds     float64 `json:"p95_gap_seconds_median"`
	Interrupted       int     `json:"interrupted_runs"`
	CrawlerErrors     int64   `json:"crawler_errors_max"`
	RatioToIdeal      float64 `json:"wall_over_ideal_median,omitempty"`
	RatioToIdealRobot float64 `json:"wall_over_ideal_with_robots_median,omitempty"`
}

// summarise reduces the runs of each crawler, in cfg.Crawlers order.
func summarise(cfg benchConfig, runs []runResult) []summary {
	var out []summary
	for _, c := range cfg.Crawlers {
		s := summary{Crawler: c, RobotsMin: math.MaxInt, MinSendGapSeconds: math.Inf(1)}
		var pages, secs, pps, rss, cpu, cpuK, gor, stk, spans, mgaps, pgaps, ideal, idealR []float64
		for _, r := range runs {
			if r.Crawler != c {
				continue
			}
			s.Runs++
			pages = append(pages, float64(r.Hits.UniquePages))
			secs = append(secs, r.Child.CrawlSeconds)
			pps = append(pps, r.PagesPerSec)
			rss = append(rss, float64(r.Child.PeakRSSKiB)/1024)
			spans = append(spans, r.Hits.SpanSeconds)
			cpu = append(cpu, r.CPUSeconds)
			if k := r.cpuPer1000(); k > 0 {
				cpuK = append(cpuK, k)
			}
			gor = append(gor, float64(r.Child.PeakGoroutines))
			stk = append(stk, float64(r.Child.PeakStackBytes)/(1<<20))
			mgaps = append(mgaps, r.Hits.MedianGapSeconds)
			pgaps = append(pgaps, r.Hits.P95GapSeconds)
			s.Worst.Add(r.Hits)
			s.RobotsMin = min(s.RobotsMin, r.Hits.RobotsMin)
			s.RobotsMax = max(s.RobotsMax, r.Hits.RobotsMax)
			s.CrawlerErrors = max(s.CrawlerErrors, r.Child.Errors)
			if r.Sends != nil {
				s.MaxSendViolations = max(s.MaxSendViolations, r.Sends.Violations)
				s.MinSendGapSeconds = math.Min(s.MinSendGapSeconds, r.Sends.MinGap)
			}
			if r.Child.Interrupted {
				s.Interrupted++
			}
			if d := cfg.Shape.CrawlDelay; d > 0 {
				ideal = append(ideal, r.Child.CrawlSeconds/(float64(cfg.Shape.Pages)*d))
				idealR = append(idealR, r.Child.CrawlSeconds/(float64(cfg.Shape.Pages+1)*d))
			}
		}
		if s.Runs == 0 {
			continue
		}
		s.UniquePages, s.CrawlSeconds, s.PagesPerSec, s.PeakRSSMiB = benchkit.Median(pages), benchkit.Median(secs), benchkit.Median(pps), benchkit.Median(rss)
		s.SpanSeconds, s.CPUSeconds = benchkit.Median(spans), benchkit.Median(cpu)
		if len(cpuK) > 0 {
			s.CPUPer1000 = benchkit.Median(cpuK)
		}
		s.PeakGoroutines, s.PeakStackMiB = benchkit.Median(gor), benchkit.Median(stk)
		s.MedianGapSeconds, s.P95GapSeconds = benchkit.Median(mgaps), benchkit.Median(pgaps)
		if len(ideal) > 0 {
			s.RatioToIdeal, s.RatioToIdealRobot = benchkit.Median(ideal), benchkit.Median(idealR)
		}
		if math.IsInf(s.MinSendGapSeconds, 1) {
			s.MinSendGapSeconds = 0
		}
		out = append(out, s)
	}
	return out
}

// goal is one target the crawl-core issue sets, with what was measured.
type goal struct {
	Name     string  `json:"name"`
	Target   string  `json:"target"`
	Measured string  `json:"measured"`
	Value    float64 `json:"value"`
	Met      bool    `json:"met"`
}

// goals evaluates the issues' targets for the benchmark's summaries. The
// speed, CPU and memory goals are ratios against a peer run in the same
// rounds: the ratio of medians is the goal, and the median of the
// per-round ratios (heed and the peer in one round) is listed beside it as
// a check that cancels slow spells common to a round.
func goals(cfg benchConfig, runs []runResult, sums []summary) []goal {
	by := map[string]summary{}
	for _, s := range sums {
		by[s.Crawler] = s
	}
	h, ok := by["heed"]
	if !ok {
		return nil
	}
	var out []goal
	switch cfg.Bench {
	case "throughput":
		// Against the bare Go crawler, the machine's practical limit
		// (issue 15's goals), then against colly.
		if b, ok := by["bare"]; ok {
			out = append(out, peerGoals(runs, h, b, []ratioGoal{
				{"unique pages/s", "≥ 0.80", 0.80, true, func(s summary) float64 { return s.PagesPerSec }, func(r runResult) float64 { return r.PagesPerSec }},
				{"CPU per page", "≤ 1.25", 1.25, false, func(s summary) float64 { return s.CPUPer1000 }, runResult.cpuPer1000},
				{"peak RSS", "≤ 1.30", 1.30, false, func(s summary) float64 { return s.PeakRSSMiB }, func(r runResult) float64 { return float64(r.Child.PeakRSSKiB) }},
			})...)
		}
		if c, ok := by["colly"]; ok {
			out = append(out, peerGoals(runs, h, c, []ratioGoal{
				{"unique pages/s", "≥ 3.00", 3.00, true, func(s summary) float64 { return s.PagesPerSec }, func(r runResult) float64 { return r.PagesPerSec }},
				{"peak RSS", "≤ 0.50", 0.50, false, func(s summary) float64 { return s.PeakRSSMiB }, func(r runResult) float64 { return float64(r.Child.PeakRSSKiB) }},
			})...)
		}
	case "politeness":
		n := cfg.Shape.Pages
		out = append(out,
			goal{fmt.Sprintf("wall ÷ ideal, ideal = %d requests (pages + robots.txt) × Crawl-delay (median)", n+1), "≤ 1.10",
				fmt.Sprintf("%.3f", h.RatioToIdealRobot), h.RatioToIdealRobot, h.RatioToIdealRobot <= 1.10},
			goal{fmt.Sprintf("wall ÷ ideal, ideal = %d pages × Crawl-delay (median)", n), "≤ 1.10",
				fmt.Sprintf("%.3f", h.RatioToIdeal), h.RatioToIdeal, h.RatioToIdeal <= 1.10},
			goal{"gap violations per crawl, at arrival (worst run)", "0", fmt.Sprint(h.MaxGapViolations), float64(h.MaxGapViolations), h.MaxGapViolations == 0},
		)
	}
	return append(out,
		goal{"robots.txt requests per authority, heed (all runs)", "exactly 1", robotsRange(h), float64(h.RobotsMax), h.RobotsMin == 1 && h.RobotsMax == 1},
		goal{"duplicate page fetches, heed (worst run)", "0", fmt.Sprint(h.MaxDuplicates), float64(h.MaxDuplicates), h.MaxDuplicates == 0},
		goal{"expected pages not fetched, heed (worst run)", "0", fmt.Sprint(h.MaxMissing), float64(h.MaxMissing), h.MaxMissing == 0},
	)
}

// ratioGoal is a target for heed's figure divided by a peer's.
type ratioGoal struct {
	measure string
	target  string
	bound   float64
	atLeast bool // the ratio must be ≥ bound; otherwise ≤ bound
	median  func(summary) float64
	figure  func(runResult) float64
}

func (g ratioGoal) met(v float64) bool {
	if g.atLeast {
		return v >= g.bound
	}
	return v <= g.bound
}

// peerGoals evaluates each target as the ratio of medians (the goal) and
// as the median of per-round ratios (each heed run against the peer's run
// of the same round), which cancels slow spells common to a round.
func peerGoals(runs []runResult, h, peer summary, gs []ratioGoal) []goal {
	var out []goal
	for _, g := range gs {
		pm := g.median(peer)
		if pm <= 0 {
			continue
		}
		r := g.median(h) / pm
		out = append(out, goal{fmt.Sprintf("%s, heed ÷ %s (ratio of medians)", g.measure, peer.Crawler), g.target, fmt.Sprintf("%.2f×", r), r, g.met(r)})
		if p, ok := pairedRatios(runs, peer.Crawler, g.figure); ok {
			out = append(out, goal{fmt.Sprintf("%s, heed ÷ %s (median of per-round ratios)", g.measure, peer.Crawler), g.target, fmt.Sprintf("%.2f×", p), p, g.met(p)})
		}
	}
	return out
}

// pairedRatios divides each heed run's figure by the peer's run of the
// same round and returns the median of those ratios.
func pairedRatios(runs []runResult, peer string, figure func(runResult) float64) (float64, bool) {
	byRound := map[int]map[string]runResult{}
	for _, r := range runs {
		if byRound[r.Run] == nil {
			byRound[r.Run] = map[string]runResult{}
		}
		byRound[r.Run][r.Crawler] = r
	}
	var ratios []float64
	for _, round := range byRound {
		h, okh := round["heed"]
		c, okc := round[peer]
		if okh && okc && figure(c) > 0 {
			ratios = append(ratios, figure(h)/figure(c))
		}
	}
	if len(ratios) == 0 {
		return 0, false
	}
	return benchkit.Median(ratios), true
}

// cpuPer1000 is the run's CPU seconds per 1,000 unique pages; 0 when no
// page was fetched.
func (r runResult) cpuPer1000() float64 {
	if r.Hits.UniquePages == 0 {
		return 0
	}
	return r.CPUSeconds / float64(r.Hits.UniquePages) * 1000
}

func robotsRange(s summary) string {
	if s.RobotsMin == s.RobotsMax {
		return fmt.Sprint(s.RobotsMin)
	}
	return fmt.Sprintf("%d–%d", s.RobotsMin, s.RobotsMax)
}

// writeMarkdown prints the report: medians, goals, then every run.
func writeMarkdown(w io.Writer, cfg benchConfig, runs []runResult, sums []summary, gs []goal) {
	sh := cfg.Shape
	fmt.Fprintf(w, "### %s: %d hosts × %d pages × %d B, %d links/page", cfg.Bench, sh.Hosts, sh.Pages, sh.Bytes, sh.Links)
	if sh.CrawlDelay > 0 {
		fmt.Fprintf(w, ", Crawl-delay %g s", sh.CrawlDelay)
	}
	fmt.Fprintf(w, "; %d requests in flight in all, %d per host; %d runs each, interleaved\n\n", cfg.Workers, cfg.PerHost, cfg.Runs)

	fmt.Fprintln(w, "Medians of the runs; the worst run for the counts that must hold every time.")
	fmt.Fprintln(w)
	benchkit.TableHeader(w, "-rrrrrrrrrrrrr", "crawler", "runs", "unique pages", "wall s", "pages/s", "CPU s", "CPU s per 1,000 pages", "peak RSS MiB", "peak goroutines",
		"peak stacks MiB", "dup. fetches (worst)", "robots.txt per authority", "missing (worst)", "unexpected (worst)")
	for _, s := range sums {
		fmt.Fprintf(w, "| %s | %d | %.0f | %.2f | %.0f | %.2f | %.3f | %.1f | %.0f | %.1f | %d | %s | %d | %d |\n",
			s.Crawler, s.Runs, s.UniquePages, s.CrawlSeconds, s.PagesPerSec, s.CPUSeconds, s.CPUPer1000, s.PeakRSSMiB, s.PeakGoroutines, s.PeakStackMiB,
			s.MaxDuplicates, robotsRange(s), s.MaxMissing, s.MaxUnexpected)
	}
	if sh.CrawlDelay > 0 {
		fmt.Fprintln(w)
		benchkit.TableHeader(w, "-rrrrrrrrrrrr", "crawler", "wall s",
			fmt.Sprintf("ideal %d×%g s", sh.Pages, sh.CrawlDelay), fmt.Sprintf("wall ÷ ideal(%d)", sh.Pages),
			fmt.Sprintf("ideal %d×%g s", sh.Pages+1, sh.CrawlDelay), fmt.Sprintf("wall ÷ ideal(%d)", sh.Pages+1),
			"longest host span s", "median gap s", "p95 gap s", "gap violations at arrival (worst)", "min arrival gap s",
			"gap violations at send (worst)", "min send gap s")
		for _, s := range sums {
			fmt.Fprintf(w, "| %s | %.3f | %.2f | %.3f | %.2f | %.3f | %.3f | %.4f | %.4f | %d | %.4f | %d | %.4f |\n", s.Crawler, s.CrawlSeconds,
				float64(sh.Pages)*sh.CrawlDelay, s.RatioToIdeal, float64(sh.Pages+1)*sh.CrawlDelay, s.RatioToIdealRobot,
				s.SpanSeconds, s.MedianGapSeconds, s.P95GapSeconds, s.MaxGapViolations, s.MinGapSeconds, s.MaxSendViolations, s.MinSendGapSeconds)
		}
		writeViolations(w, runs)
	}
	if len(gs) > 0 {
		fmt.Fprintln(w)
		benchkit.TableHeader(w, "", "goal", "target", "measured", "met")
		for _, g := range gs {
			met := "no"
			if g.Met {
				met = "yes"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", g.Name, g.Target, g.Measured, met)
		}
	}
	fmt.Fprintln(w, "\nIndividual runs:")
	fmt.Fprintln(w)
	benchkit.TableHeader(w, "r-rrrrrrrrrrrrrrrr", "run", "crawler", "unique pages", "wall s", "lead s", "longest host span s", "tail s",
		"pages/s", "CPU s", "CPU s per 1,000 pages", "peak RSS MiB", "dup. fetches", "robots.txt (min–max)", "missing", "requests", "crawler errors",
		"gap violations", "min gap s")
	for _, r := range runs {
		fmt.Fprintf(w, "| %d | %s | %d | %.3f | %.3f | %.3f | %.3f | %.0f | %.2f | %.3f | %.1f | %d | %d–%d | %d | %d | %d | %d | %.4f |\n",
			r.Run, r.Crawler, r.Hits.UniquePages, r.Child.CrawlSeconds, r.LeadSeconds, r.Hits.SpanSeconds, r.TailSeconds,
			r.PagesPerSec, r.CPUSeconds, r.cpuPer1000(), float64(r.Child.PeakRSSKiB)/1024,
			r.Hits.DuplicateFetches, r.Hits.RobotsMin, r.Hits.RobotsMax, r.Hits.Missing, r.Hits.Requests,
			r.Child.Errors, r.Hits.GapViolations, r.Hits.MinGapSeconds)
	}
	if strings.Contains(strings.Join(cfg.Crawlers, ","), "colly") && cfg.Bench == "throughput" {
		fmt.Fprintf(w, "\ncolly: limit rules %s, visited set %s\n", cfg.CollyLimit, cfg.CollyVisited)
	}
}

// writeViolations lists each gap violation of the hit log, and of the
// crawler's send log, run by run.
func writeViolations(w io.Writer, runs []runResult) {
	header := false
	for _, r := range runs {
		lists := []struct {
			side string
			vs   []benchkit.GapViolation
		}{{"arrival", r.Hits.Violations}}
		if r.Sends != nil {
			lists = append(lists, struct {
				side string
				vs   []benchkit.GapViolation
			}{"send", r.Sends.Details})
		}
		for _, l := range lists {
			for _, v := range l.vs {
				if !header {
					fmt.Fprintln(w, "\nGap violations:")
					fmt.Fprintln(w)
					benchkit.TableHeader(w, "r-----rr", "run", "crawler", "side", "authority", "previous request", "request", "gap s", "gap before s")
					header = true
				}
				fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %.4f | %.4f |\n", r.Run, r.Crawler, l.side, v.Authority, v.Prev, v.Path, v.Gap, v.GapBefore)
			}
		}
	}
}

package stats

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// Rate returns pages per second over the elapsed time.
func (s Snapshot) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Pages) / s.Elapsed.Seconds()
}

// ItemRate returns items exported per second over the elapsed time.
func (s Snapshot) ItemRate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Items) / s.Elapsed.Seconds()
}

// Line returns the counts on one line, for a progress display or a
// periodic log line.
func (s Snapshot) Line() string {
	return fmt.Sprintf("pages %d (%.1f/s)  waiting %d  in flight %d  duplicates %d  skipped %d  items %d (%d dropped)  %s",
		s.Pages, s.Rate(), s.Waiting, s.InFlight, s.Duplicates, s.SkippedTotal(), s.Items, s.ItemsDropped, s.Elapsed.Round(time.Second))
}

// SkippedTotal returns the number of skip-log records.
func (s Snapshot) SkippedTotal() int64 {
	var n int64
	for _, v := range s.Skipped {
		n += v
	}
	return n
}

// Format writes a human-readable summary.
func (s Snapshot) Format(w io.Writer) error {
	_, err := fmt.Fprintf(w, "pages: %d (%s, %.1f pages/s, %s)\n", s.Pages, FormatBytes(s.Bytes), s.Rate(), s.Elapsed.Round(time.Millisecond))
	if err != nil {
		return err
	}
	if s.Truncated > 0 {
		fmt.Fprintf(w, "cut at the body limit: %d pages (only their first bytes were read)\n", s.Truncated)
	}
	if s.CacheHits > 0 {
		fmt.Fprintf(w, "from the HTTP cache: %d of the pages, without contacting their sites\n", s.CacheHits)
	}
	if s.Runs > 0 {
		fmt.Fprintf(w, "runs: %d (the counts are the job's, since %s)\n", s.Runs, s.Started.Format(time.RFC3339))
	}
	codes := make([]int, 0, len(s.Statuses))
	for c := range s.Statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	fmt.Fprint(w, "statuses:")
	for _, c := range codes {
		fmt.Fprintf(w, " %d=%d", c, s.Statuses[c])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "discovered: %d queued, %d duplicates, %d non-http links ignored\n", s.Queued, s.Duplicates, s.IgnoredLinks)
	if s.PagesCut > 0 || s.LinksCapped > 0 {
		fmt.Fprintf(w, "page limits: %d pages parsed in part (element limit), %d links not followed on %d pages (link limit)\n",
			s.PagesCut, s.LinksCapped, s.PagesCapped)
	}
	hosts := map[string]int{}
	for _, as := range s.Authorities {
		if as.Robots != "" {
			hosts[as.Robots]++
		}
	}
	var fetches int64
	for _, n := range s.Robots {
		fetches += n
	}
	fmt.Fprintf(w, "robots.txt: %d hosts available, %d unavailable (4xx: no restrictions), %d unreachable (complete disallow); %d fetches\n",
		hosts["available"], hosts["unavailable"], hosts["unreachable"], fetches)
	fmt.Fprintf(w, "items: %d exported, %d dropped, %d errors", s.Items, s.ItemsDropped, s.ItemErrors)
	if len(s.Dropped) > 0 {
		reasons := make([]string, 0, len(s.Dropped))
		for r := range s.Dropped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprint(w, " (dropped:")
		for i, r := range reasons {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s=%d", sep, r, s.Dropped[r])
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	if s.CallbackErrors > 0 {
		fmt.Fprintf(w, "callback errors: %d\n", s.CallbackErrors)
	}
	return nil
}

// FormatBytes writes a byte count the way heed's summaries do: "512 B",
// "8.0 KiB", "1.5 MiB", "2.0 GiB".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

package stats

import (
	"fmt"
	"io"
	"sort"

	"github.com/heedcrawl/heed/skiplog"
)

// Shared holds the counts of a crawl shared by several processes (package
// fleet), summed over all of them, and what is left of its queue: what a
// process reports when it stops (fleet.Summary) and what heed's fleet page
// shows. It is plain data, readable without a Redis client.
type Shared struct {
	// CrawlID names the crawl.
	CrawlID string `json:"crawl_id"`
	// Pages and Bytes count the responses downloaded by all processes;
	// Statuses counts them by status.
	Pages    int64         `json:"pages"`
	Bytes    int64         `json:"bytes"`
	Statuses map[int]int64 `json:"statuses"`
	// Skipped counts the skip-log records of all processes by reason.
	Skipped map[skiplog.Reason]int64 `json:"skipped"`
	// Robots counts robots.txt fetches by outcome.
	Robots map[string]int64 `json:"robots"`
	// Queued and Leased are the crawl's requests left when this process
	// stopped: queued, and handed out to a process.
	Queued int `json:"queued"`
	Leased int `json:"leased"`
	// Reclaimed counts leases that expired and whose requests were given
	// to another process: the bound on the URLs fetched twice.
	Reclaimed int `json:"reclaimed"`
	// Done says nothing was queued or leased anywhere in the crawl.
	Done bool `json:"complete"`
	// Err says why the crawl-wide counts could not be read, if they
	// could not; the other fields are then zero.
	Err string `json:"error,omitempty"`
}

// Complete says nothing was queued or leased anywhere in the crawl.
func (s *Shared) Complete() bool { return s.Done }

// SkippedTotal counts the skip-log records of every process.
func (s *Shared) SkippedTotal() int64 {
	var n int64
	for _, k := range s.Skipped {
		n += k
	}
	return n
}

// FetchedPages counts the pages every process of the crawl fetched: a
// process that fetched none while the others did has not failed (see
// NothingFetched).
func (s *Shared) FetchedPages() int64 { return s.Pages }

// Format writes the crawl-wide summary as a few lines.
func (s *Shared) Format(w io.Writer) error {
	if s.Err != "" {
		_, err := fmt.Fprintf(w, "crawl %s (all processes): counts unavailable: %s\n", s.CrawlID, s.Err)
		return err
	}
	state := "complete: nothing queued or in flight in any process"
	if !s.Done {
		state = fmt.Sprintf("%d URLs queued and %d in flight, left to the other processes (run again with the same --crawl-id to help)", s.Queued, s.Leased)
	}
	if _, err := fmt.Fprintf(w, "crawl %s (all processes): %d pages (%s), %d skipped, %d leases reclaimed from stopped processes; %s\n",
		s.CrawlID, s.Pages, FormatBytes(s.Bytes), s.SkippedTotal(), s.Reclaimed, state); err != nil {
		return err
	}
	if len(s.Skipped) > 0 {
		reasons := make([]string, 0, len(s.Skipped))
		for r := range s.Skipped {
			reasons = append(reasons, string(r))
		}
		sort.Strings(reasons)
		fmt.Fprint(w, "  skipped by reason:")
		for _, r := range reasons {
			fmt.Fprintf(w, " %s=%d", r, s.Skipped[skiplog.Reason(r)])
		}
		fmt.Fprintln(w)
	}
	return nil
}

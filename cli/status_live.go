package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/stats"
)

// formatRunning writes the report of a state a crawl holds: its status
// snapshot.
func formatRunning(w io.Writer, rep *jobstate.Report, now time.Time) error {
	fmt.Fprintf(w, "state: %s\n", rep.Dir)
	l := rep.Live
	if l == nil {
		who := "a crawl"
		if rep.PID > 0 {
			who = fmt.Sprintf("a crawl (pid %d)", rep.PID)
		}
		_, err := fmt.Fprintf(w, "job: running: %s holds the state and has published no status snapshot yet (it is starting, or is a heed without snapshots)\n", who)
		return err
	}
	fmt.Fprintf(w, "job: running: pid %d on %s, this run since %s (run %d of the job, agent %s)\n",
		l.PID, l.Host, ago(l.Started, now), l.Job.Runs, l.Job.Agent)
	age := l.Age(now)
	fresh := ""
	if age > jobstate.LiveStaleAfter {
		fresh = fmt.Sprintf(": not updated for over %s although the crawl holds the state (stuck, or its disk full?)", jobstate.LiveStaleAfter)
	}
	fmt.Fprintf(w, "status snapshot: %s%s\n", ago(l.Updated, now), fresh)
	fmt.Fprintf(w, "progress: %d pages (%s), %d items; %s of crawling\n", l.Pages, stats.FormatBytes(l.Bytes), l.Items, roundDuration(l.Elapsed))
	fmt.Fprintf(w, "frontier: %d queued, %d in flight, %d authorities with URLs queued\n", l.Queued, l.InFlight, l.Authorities)
	if len(l.TopQueued) > 0 {
		title := "queued by authority:"
		if len(l.TopQueued) < l.Authorities {
			title = fmt.Sprintf("queued by authority (the %d most queued):", len(l.TopQueued))
		}
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, q := range l.TopQueued {
			fmt.Fprintf(tw, "  %s\t%d\n", q.Authority, q.Queued)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "skipped: %s\n", reasonCounts(l.Skipped))
	e := l.Errors
	fmt.Fprintf(w, "errors: %d responses with status 400 or more, %d URLs whose fetch failed, %d callback errors, %d item errors\n",
		e.HTTP, e.Failed, e.Callbacks, e.Items)
	if l.RobotsPending > 0 {
		fmt.Fprintf(w, "robots.txt pending: %d authorities unreachable, retried while their URLs wait: %s", l.RobotsPending, strings.Join(l.RobotsWaiting, ", "))
		if len(l.RobotsWaiting) < l.RobotsPending {
			fmt.Fprintf(w, " and %d more", l.RobotsPending-len(l.RobotsWaiting))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "robots.txt pending: none")
	}
	return nil
}

// reasonCounts writes counts by skip reason on one line: "3 URLs:
// offsite=1 robots-disallow=2", or "none".
func reasonCounts[K ~string](m map[K]int64) string {
	var total int64
	given := make(map[K]int64, len(m))
	for k, n := range m {
		if n > 0 {
			given[k] = n
			total += n
		}
	}
	if total == 0 {
		return "none"
	}
	return fmt.Sprintf("%d URLs: %s", total, counts(given))
}

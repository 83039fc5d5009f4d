package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/stats"
)

func (a *App) statusCommand() *cobra.Command {
	stdout := a.stdout
	var sf stateFlag
	var jf jsonFlag
	var fl fleetTarget
	cmd := &cobra.Command{
		Use:   "status --state DIR | --redis URL --crawl-id ID",
		Short: "Show the progress of a crawl job (--state) or of a shared crawl (--redis): pages, queues, skip reasons, robots.txt",
		Long: `Read the state directory of a crawl run with --state and report it: whether
the job is complete, paused or was killed; pages, items and time over all its
runs; the URLs queued per authority; the skip log's reasons; and the last
robots.txt fetch of every authority.

While a crawl runs on the state, it reports the status snapshot the crawl
publishes in DIR/status.json every second: which process (pid, host) runs
it since when, how fresh the snapshot is, pages, the queue and its most
queued authorities, skip reasons, errors, and the authorities waiting on
an unreachable robots.txt. A snapshot left by a process that died (kill
-9) is said to be stale.

With --redis URL --crawl-id ID it reads a crawl shared through Redis,
without joining it: whether it is running (live processes), paused
(URLs queued, no live process) or finished (when, with what counts); the
crawl-wide counters; the queue per authority and the leases outstanding;
and every process with its last heartbeat.

With --json the report is one JSON object (of the state, or of the shared
crawl) instead of text.`,
		Example: `  heed status --state job1
  heed status --state job1 --json
  heed status --redis redis://10.0.0.5:6379/0 --crawl-id news`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fl.url != "" || fl.crawlID != "" {
				if sf.state != "" {
					return usageError("status takes --state or --redis, not both")
				}
				if len(args) > 0 {
					return usageError("status takes no arguments (did you mean --crawl-id %s?)", args[0])
				}
				return fleetStatus(cmd.Context(), stdout, &fl, jf.asJSON)
			}
			if sf.state == "" {
				return usageError("status needs --state DIR (or --redis URL --crawl-id ID)")
			}
			if len(args) > 0 {
				return usageError("status takes no arguments (did you mean --state %s?)", args[0])
			}
			rep, err := jobstate.Status(sf.state)
			switch {
			case errors.Is(err, jobstate.ErrNotState):
				return &exitError{code: 2, err: err}
			case err != nil:
				return &exitError{code: 2, err: err}
			}
			if jf.asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			if rep.Running {
				return formatRunning(stdout, rep, time.Now())
			}
			return formatStatus(stdout, rep, time.Now())
		},
	}
	sf.register(cmd.Flags())
	jf.register(cmd.Flags())
	fl.register(cmd)
	return cmd
}

// formatStatus writes a state report for a person.
func formatStatus(w io.Writer, rep *jobstate.Report, now time.Time) error {
	job, fs := rep.Job, rep.Frontier
	fmt.Fprintf(w, "state: %s\n", rep.Dir)
	switch {
	case job.Runs == 0:
		fmt.Fprintln(w, "job: never started")
	case job.Complete:
		fmt.Fprintf(w, "job: complete (stopped %s): every URL is fetched or in the skip log\n", ago(job.Stopped, now))
	case job.Running:
		fmt.Fprintf(w, "job: stopped without closing (killed?) after a run started %s: %d URLs queued, %d in flight will be fetched again; run the same crawl command to resume\n",
			ago(job.LastStart, now), fs.Queued, fs.Leased)
	default:
		fmt.Fprintf(w, "job: paused (stopped %s): %d URLs queued; run the same crawl command to resume\n", ago(job.Stopped, now), fs.Queued)
	}
	if l := rep.Live; l != nil && l.Running {
		fmt.Fprintf(w, "status snapshot: stale: written by pid %d on %s %s; that process is gone without closing the job\n",
			l.PID, l.Host, ago(l.Updated, now))
	}
	if job.Runs > 0 {
		fmt.Fprintf(w, "runs: %d since %s (agent %s)\n", job.Runs, job.Started.Format(time.RFC3339), job.Agent)
	}
	if s := rep.Stats; s != nil {
		label := "progress"
		if job.Running {
			label = "progress at the last checkpoint (APPROXIMATE: the process stopped up to a second later, and its last pages are not counted)"
		}
		fmt.Fprintf(w, "%s: %d pages, %d items (%d dropped), %d duplicates; %s of crawling (%.1f pages/s)\n",
			label, s.Pages, s.Items, s.ItemsDropped, s.Duplicates, roundDuration(s.Elapsed), s.Rate())
	}
	if n := jobstate.ApproximateNote(job.Killed); n != "" {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "frontier: %d queued, %d in flight at the last stop, %d URLs seen, %s on disk\n",
		fs.Queued, fs.Leased, fs.Seen, stats.FormatBytes(fs.DiskBytes))
	if len(fs.ByAuthority) > 0 {
		fmt.Fprintln(w, "queued by authority:")
		auths := make([]string, 0, len(fs.ByAuthority))
		for a := range fs.ByAuthority {
			auths = append(auths, a)
		}
		sort.Strings(auths)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, a := range auths {
			fmt.Fprintf(tw, "  %s\t%d", a, fs.ByAuthority[a])
			if h, ok := fs.Holds[a]; ok && h.After(now) {
				fmt.Fprintf(tw, "\ton hold until %s", h.Format(time.RFC3339))
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	rep.Skipped.Format(w)
	if len(rep.Robots) > 0 {
		fmt.Fprintln(w, "robots.txt by authority:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range rep.Robots {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Authority, robotsLine(r, now))
		}
		tw.Flush()
	}
	return nil
}

// robotsLine describes one authority's last robots.txt fetch.
func robotsLine(r jobstate.RobotsReport, now time.Time) string {
	status := fmt.Sprint(r.Status)
	if r.Status == 0 {
		status = "no response"
	}
	s := fmt.Sprintf("%s (%s), fetched %s", r.State, status, ago(r.FetchedAt, now))
	if r.CrawlDelay > 0 {
		s += fmt.Sprintf(", crawl-delay %v", r.CrawlDelay)
	}
	if r.State == "unreachable" {
		s += fmt.Sprintf(", %d tries since %s", r.Failures, r.FirstFailure.Format(time.RFC3339))
		if r.RetryAt.After(now) {
			s += ", next try " + r.RetryAt.Format(time.RFC3339)
		}
	}
	if r.Err != "" {
		s += ": " + r.Err
	}
	return s
}

// roundDuration rounds d to what a person reads: milliseconds under a
// minute, seconds above.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// ago writes a time with how long ago it was.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	return fmt.Sprintf("%s, %s ago", t.Format(time.RFC3339), now.Sub(t).Round(time.Second))
}

package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/stats"
)

// fleetTarget is --redis and --crawl-id: a crawl shared through Redis.
// crawl joins it (fleetFlags adds what joining needs); status, ui and
// fleet clear read or clear it without joining.
type fleetTarget struct {
	url     string
	crawlID string
}

func (ft *fleetTarget) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&ft.url, "redis", "", "the Redis database of a crawl shared by heed processes on this machine or others, e.g. redis://127.0.0.1:6379/0")
	fl.StringVar(&ft.crawlID, "crawl-id", "", "with --redis: the shared crawl's name (a crawl without one makes it from --agent and the seeds, so processes started with the same command join one crawl, and prints it)")
}

// client checks the target and connects to its Redis.
func (ft *fleetTarget) client() (*redis.Client, error) {
	switch {
	case ft.url == "":
		return nil, usageError("--crawl-id needs --redis URL")
	case ft.crawlID == "":
		return nil, usageError("--redis needs --crawl-id ID: the shared crawl's name")
	}
	opt, err := redis.ParseURL(ft.url)
	if err != nil {
		return nil, usageError("--redis %s: %v", ft.url, err)
	}
	return redis.NewClient(opt), nil
}

// fleetReadTimeout bounds a command that reads or clears a shared crawl:
// a Redis that is gone is an error, not a command that never returns.
const fleetReadTimeout = 30 * time.Second

// fleetStatus is status --redis: the shared crawl as Redis holds it.
func fleetStatus(ctx context.Context, w io.Writer, ft *fleetTarget, asJSON bool) error {
	rdb, err := ft.client()
	if err != nil {
		return err
	}
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(ctx, fleetReadTimeout)
	defer cancel()
	st, err := fleet.ReadStatus(ctx, rdb, ft.crawlID)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	if st.State == fleet.StateEmpty {
		return &exitError{code: 2, err: fmt.Errorf("crawl %s has no keys in %s: it never started, or was cleared", ft.crawlID, redactURL(ft.url))}
	}
	return formatFleetStatus(w, st, redactURL(ft.url))
}

// formatFleetStatus writes a shared crawl's status for a person.
func formatFleetStatus(w io.Writer, st *fleet.Status, where string) error {
	now := st.Now
	fmt.Fprintf(w, "crawl: %s (redis %s)\n", st.CrawlID, where)
	switch st.State {
	case fleet.StateRunning:
		fmt.Fprintf(w, "state: running: %d live processes\n", st.Live())
	case fleet.StateFinished:
		if f := st.Finished; f != nil {
			fmt.Fprintf(w, "state: finished %s (%d pages, %d skipped, by %s): nothing queued or in flight\n", ago(f.At, now), f.Pages, f.Skipped, f.By)
		} else {
			fmt.Fprintln(w, "state: finished: nothing queued or in flight")
		}
	default:
		fmt.Fprintf(w, "state: paused: %d URLs queued, %d in flight, and no live process; run the crawl again with --redis and --crawl-id %s to go on\n", st.Queued, st.Leased, st.CrawlID)
	}
	if len(st.Processes) > 0 {
		fmt.Fprintln(w, "processes:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range st.Processes {
			state := "live"
			if !p.Live {
				state = "gone (no heartbeat for over 3 intervals: killed, or cut off from redis)"
			}
			fmt.Fprintf(tw, "  pid %d on %s\t%s\tjoined %s\tlast heartbeat %s\n", p.PID, p.Host, state, p.Started.UTC().Format(time.RFC3339), ago(p.Beat, now))
		}
		tw.Flush()
	} else {
		fmt.Fprintln(w, "processes: none")
	}
	fmt.Fprintf(w, "progress: %d pages (%s) by every process; statuses: %s\n", st.Pages, stats.FormatBytes(st.Bytes), counts(st.Statuses))
	fmt.Fprintf(w, "frontier: %d queued, %d leases outstanding, %d leases reclaimed from stopped processes, %d URLs seen\n", st.Queued, st.Leased, st.Reclaimed, st.Seen)
	if len(st.ByAuthority) > 0 {
		type aq struct {
			a string
			n int
		}
		var qs []aq
		for a, n := range st.ByAuthority {
			qs = append(qs, aq{a, n})
		}
		sort.Slice(qs, func(i, j int) bool { return qs[i].n > qs[j].n || qs[i].n == qs[j].n && qs[i].a < qs[j].a })
		title := "queued by authority:"
		if len(qs) > fleetTop {
			title = fmt.Sprintf("queued by authority (the %d most queued of %d):", fleetTop, len(qs))
			qs = qs[:fleetTop]
		}
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, q := range qs {
			fmt.Fprintf(tw, "  %s\t%d\n", q.a, q.n)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "skipped: %s\n", reasonCounts(st.Skipped))
	fmt.Fprintf(w, "robots.txt fetches: %s\n", counts(st.Robots))
	return nil
}

// fleetTop bounds the authorities status lists by queue size.
const fleetTop = 20

// counts writes a map of counts on one line in key order, "k=n k=n"
// (HTTP statuses, robots.txt outcomes), or "none" when it is empty.
func counts[K cmp.Ordered](m map[K]int64) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%v=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// fleetCommand is `fleet`: what a shared crawl's keys in Redis need
// besides crawling them.
func (a *App) fleetCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Manage a crawl shared through Redis (crawl --redis): clear its keys",
	}
	var ft fleetTarget
	var force bool
	clear := &cobra.Command{
		Use:   "clear --redis URL --crawl-id ID [--force]",
		Short: "Delete every key of a shared crawl, so that running it again starts it over",
		Long: `Delete every key a crawl shared through Redis keeps under its crawl id: its
queue and seen set, leases, pacing, robots.txt cache, counters, processes
and its finished record. A finished crawl stays in Redis, and running it
again says it finished, until it is cleared. Clearing a crawl while one of
its processes is live (a heartbeat within three of its intervals) is
refused, exit status 1, naming the processes; --force clears it anyway
(the processes still running then go on with a crawl whose queue is gone).`,
		Example: `  heed fleet clear --redis redis://10.0.0.5:6379/0 --crawl-id news`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("fleet clear takes no arguments (did you mean --crawl-id %s?)", args[0])
			}
			rdb, err := ft.client()
			if err != nil {
				return err
			}
			defer rdb.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), fleetReadTimeout)
			defer cancel()
			n, err := fleet.Clear(ctx, rdb, ft.crawlID, force)
			var live *fleet.LiveError
			switch {
			case errors.As(err, &live):
				return &exitError{code: 1, err: fmt.Errorf("%v (--force)", err)}
			case err != nil:
				return &exitError{code: 1, err: err}
			case n == 0:
				fmt.Fprintf(a.stdout, "crawl %s: no keys in %s (it never started, or was cleared already): nothing deleted\n", ft.crawlID, redactURL(ft.url))
			default:
				fmt.Fprintf(a.stdout, "crawl %s: deleted %d keys from %s; running it again starts it over\n", ft.crawlID, n, redactURL(ft.url))
			}
			return nil
		},
	}
	ft.register(clear)
	clear.Flags().BoolVar(&force, "force", false, "clear the crawl even while some of its processes are live")
	cmd.AddCommand(clear)
	return cmd
}

// finishedFleet stops crawl --redis before any output is opened when the
// shared crawl has finished: it says when, with what counts, and how to
// start it over, and the command exits 0, as a finished --state job does.
func finishedFleet(ctx context.Context, program string, b *fleet.Fleet, id, url string, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, fleetReadTimeout)
	defer cancel()
	fin, err := b.Finished(ctx)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if fin == nil {
		return nil
	}
	fmt.Fprintf(w, "crawl %s already finished at %s (%d pages, %d skipped): nothing left to do; `%s fleet clear --redis %s --crawl-id %s` deletes its keys to start it over\n",
		id, fin.At.UTC().Format(time.RFC3339), fin.Pages, fin.Skipped, program, redactURL(url), id)
	return &exitError{code: 0}
}

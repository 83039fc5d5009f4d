package fleet

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/stats"
)

// The states of a shared crawl, as Status says.
const (
	// StateEmpty: no key of the crawl exists (never started, or cleared).
	StateEmpty = "empty"
	// StateRunning: at least one process is live.
	StateRunning = "running"
	// StatePaused: URLs are queued or leased, and no process is live.
	StatePaused = "paused"
	// StateFinished: nothing is queued or leased anywhere and the crawl
	// did something; Finished says when, if a process recorded it.
	StateFinished = "finished"
)

// Status is a shared crawl as Redis holds it, read without joining it
// (ReadStatus): its state, its crawl-wide counters, its queue, its
// processes and their heartbeats.
type Status struct {
	// Shared holds the crawl-wide counters of every process and what is
	// left of the queue (CrawlID, Pages, Bytes, Statuses, Skipped,
	// Robots, Queued, Leased, Reclaimed, Done), as a process reports them
	// when it stops (Summary).
	stats.Shared
	// State is StateEmpty, StateRunning, StatePaused or StateFinished.
	State string `json:"state"`
	// Now is the Redis server's clock when the status was read.
	Now time.Time `json:"now"`
	// Seen counts the URLs the crawl has seen; ByAuthority the requests
	// queued per authority.
	Seen        int            `json:"seen"`
	ByAuthority map[string]int `json:"by_authority"`
	// Processes are the processes that joined the crawl and have not
	// left it (a killed one stays, not live), in the order they joined.
	Processes []Process `json:"processes"`
	// Finished is the crawl's finished record, once a process made it.
	Finished *Finished `json:"finished,omitempty"`
}

// Live counts the live processes.
func (s *Status) Live() int {
	n := 0
	for _, p := range s.Processes {
		if p.Live {
			n++
		}
	}
	return n
}

// ReadStatus reads the shared crawl named crawlID in the database rdb
// reaches, without joining it: it changes nothing in Redis, so it can
// watch a running, paused or finished crawl.
func ReadStatus(ctx context.Context, rdb redis.UniversalClient, crawlID string) (*Status, error) {
	store, err := openStore(rdb, crawlID)
	if err != nil {
		return nil, err
	}
	st := &Status{}
	if st.Processes, st.Now, err = readProcesses(ctx, store); err != nil {
		return nil, fmt.Errorf("fleet: processes: %w", err)
	}
	tot, err := redisstore.NewCounters(store).Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: counters: %w", err)
	}
	cn, err := redisfrontier.ReadCounts(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("fleet: queue: %w", err)
	}
	st.Shared = *Summarize(crawlID, tot, cn)
	st.Seen, st.ByAuthority = cn.Seen, cn.ByAuthority
	if st.Finished, err = readFinished(ctx, store); err != nil {
		return nil, err
	}
	exhausted := st.Done
	switch {
	case st.Live() > 0:
		st.State = StateRunning
	case st.Finished != nil || exhausted && (st.Pages > 0 || st.SkippedTotal() > 0):
		st.State = StateFinished
	case cn.Seen > 0 || cn.Queued > 0 || cn.Leased > 0 || len(st.Processes) > 0:
		st.State = StatePaused
	default:
		st.State = StateEmpty
	}
	return st, nil
}

// LiveError is Clear's refusal of a crawl that has live processes.
type LiveError struct {
	CrawlID   string
	Processes []Process // the live ones
}

// Error names the live processes.
func (e *LiveError) Error() string {
	names := make([]string, len(e.Processes))
	for i, p := range e.Processes {
		names[i] = fmt.Sprintf("pid %d on %s", p.PID, p.Host)
	}
	return fmt.Sprintf("crawl %s has %d live processes (%s): stop them first, or force it", e.CrawlID, len(e.Processes), strings.Join(names, ", "))
}

// Clear deletes every key of the shared crawl named crawlID (its queue
// and seen set, leases, pacing, robots.txt cache, counters, processes and
// finished record), so that the next process to join starts it over. It
// refuses with a *LiveError while a process of the crawl is live, unless
// force; a process still running then would go on with a crawl whose
// queue is gone. It returns the number of keys it deleted.
func Clear(ctx context.Context, rdb redis.UniversalClient, crawlID string, force bool) (int, error) {
	store, err := openStore(rdb, crawlID)
	if err != nil {
		return 0, err
	}
	if !force {
		procs, _, err := readProcesses(ctx, store)
		if err != nil {
			return 0, fmt.Errorf("fleet: processes: %w", err)
		}
		var live []Process
		for _, p := range procs {
			if p.Live {
				live = append(live, p)
			}
		}
		if len(live) > 0 {
			return 0, &LiveError{CrawlID: crawlID, Processes: live}
		}
	}
	n, err := store.Reset(ctx)
	if err != nil {
		return n, fmt.Errorf("fleet: clear %s: %w", crawlID, err)
	}
	return n, nil
}

// openStore makes a reader's store of the crawl: it retries a Redis
// that is away for a few seconds, not the minute a crawl waits.
func openStore(rdb redis.UniversalClient, crawlID string) (*redisstore.Store, error) {
	if !crawlIDPattern.MatchString(crawlID) {
		return nil, fmt.Errorf("fleet: crawl id %q: use letters, digits, '.', '_' and '-' (at most 100)", crawlID)
	}
	store, err := redisstore.NewStore(rdb, Prefix(crawlID), redisstore.WithRetryFor(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return store, nil
}

func sortProcesses(ps []Process) {
	sort.Slice(ps, func(i, j int) bool {
		if !ps[i].Started.Equal(ps[j].Started) {
			return ps[i].Started.Before(ps[j].Started)
		}
		return ps[i].ID < ps[j].ID
	})
}

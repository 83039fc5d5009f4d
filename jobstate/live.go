package jobstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// liveName is the status snapshot's file in a state directory.
const liveName = "status.json"

// LiveTop bounds the authorities a Live snapshot lists by queue size and
// those it lists as waiting on robots.txt: the file stays small however
// many authorities the crawl knows.
const LiveTop = 20

// LiveStaleAfter is how old the snapshot of a crawl that still holds its
// state may be before `heed status` says the crawl is not updating it
// (stuck, or its disk full): several checkpoints missed.
const LiveStaleAfter = 15 * time.Second

// Live is the status snapshot a running crawl publishes in its state
// directory (DIR/status.json) at every checkpoint, every second, and when
// it stops, so that `heed status` can report a job while the crawl holds
// its lock. It is written to a temporary file renamed over the last one,
// by the checkpoint loop: a reader sees a whole snapshot, and the crawl
// never waits for a reader. A snapshot whose Running is true while no
// process holds the state was left by a process that died (kill -9): it
// is stale.
type Live struct {
	// PID and Host name the process that wrote it; Started is when its
	// run started, Updated when it wrote the snapshot (this machine's
	// clock).
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Running is false in the snapshot written when the run ended.
	Running bool `json:"running"`
	// Job is the job record as the run keeps it.
	Job Job `json:"job"`

	// Pages, Bytes and Items count the job's pages, their bytes and the
	// items exported, over every run; Elapsed is the time of its runs.
	Pages   int64         `json:"pages"`
	Bytes   int64         `json:"bytes"`
	Items   int64         `json:"items"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Queued and InFlight are the frontier's counts; Authorities counts
	// the authorities with URLs queued, and TopQueued lists the LiveTop
	// most queued, most first.
	Queued      int              `json:"queued"`
	InFlight    int              `json:"in_flight"`
	Authorities int              `json:"authorities_queued"`
	TopQueued   []AuthorityQueue `json:"top_queued,omitempty"`
	// Skipped counts the skip log's records by reason, over every run.
	Skipped map[skiplog.Reason]int64 `json:"skipped"`
	// Errors counts what went wrong.
	Errors LiveErrors `json:"errors"`
	// RobotsPending counts the authorities whose robots.txt is
	// unreachable and being retried while their URLs wait (complete
	// disallow until it answers); RobotsWaiting names up to LiveTop.
	RobotsPending int      `json:"robots_pending"`
	RobotsWaiting []string `json:"robots_waiting,omitempty"`
}

// AuthorityQueue is one authority's queue in a Live snapshot.
type AuthorityQueue struct {
	Authority string `json:"authority"`
	Queued    int    `json:"queued"`
}

// LiveErrors are the errors a Live snapshot counts.
type LiveErrors struct {
	// HTTP counts responses with a status of 400 or more.
	HTTP int64 `json:"http"`
	// Failed counts URLs whose fetch failed (skip reasons fetch-error and
	// host-unreachable).
	Failed int64 `json:"failed"`
	// Callbacks counts callbacks that panicked; Items the pipeline and
	// export errors.
	Callbacks int64 `json:"callbacks"`
	Items     int64 `json:"items"`
}

// Age returns how old the snapshot is at now.
func (l *Live) Age(now time.Time) time.Duration { return now.Sub(l.Updated) }

// newLive makes the snapshot of a run from its statistics.
func newLive(pid int, host string, started time.Time, job Job, s *stats.Snapshot, byAuth map[string]int) *Live {
	l := &Live{
		PID: pid, Host: host, Started: started, Updated: time.Now(), Running: job.Running, Job: job,
		Pages: s.Pages, Bytes: s.Bytes, Items: s.Items, Elapsed: s.Elapsed,
		Queued: s.Waiting, InFlight: s.InFlight, Skipped: s.Skipped,
		Errors: LiveErrors{
			Failed:    s.Skipped[skiplog.FetchError] + s.Skipped[skiplog.HostUnreachable],
			Callbacks: s.CallbackErrors, Items: s.ItemErrors,
		},
	}
	for code, n := range s.Statuses {
		if code >= 400 {
			l.Errors.HTTP += n
		}
	}
	for a, n := range byAuth {
		if n <= 0 {
			continue
		}
		l.Authorities++
		l.TopQueued = append(l.TopQueued, AuthorityQueue{a, n})
		if s.Authorities[a].Robots == "unreachable" {
			l.RobotsPending++
			l.RobotsWaiting = append(l.RobotsWaiting, a)
		}
	}
	sort.Slice(l.TopQueued, func(i, j int) bool {
		a, b := l.TopQueued[i], l.TopQueued[j]
		return a.Queued > b.Queued || a.Queued == b.Queued && a.Authority < b.Authority
	})
	l.TopQueued = l.TopQueued[:min(len(l.TopQueued), LiveTop)]
	sort.Strings(l.RobotsWaiting)
	l.RobotsWaiting = l.RobotsWaiting[:min(len(l.RobotsWaiting), LiveTop)]
	return l
}

// writeLive replaces DIR/status.json with l: a temporary file in DIR,
// renamed over it, so that a reader never sees half a snapshot. It is not
// synced: the snapshot is for watching, and the state's own records are
// what a resume trusts.
func writeLive(dir string, l *Live) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, liveName+".*")
	if err != nil {
		return fmt.Errorf("jobstate: status snapshot: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, liveName))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("jobstate: status snapshot: %w", err)
	}
	return nil
}

// liveWriter publishes a run's status snapshots. Its methods are called
// under the session's checkpoint lock.
type liveWriter struct {
	pid     int
	host    string
	started time.Time
	failed  bool // a write failed and was logged; said once
}

func (w *liveWriter) start() {
	w.pid, w.started = os.Getpid(), time.Now()
	w.host, _ = os.Hostname()
}

// write publishes the snapshot of a run of the job in dir ("" for a
// State that is not a directory: nothing to write). A failure is logged
// once and fails nothing: the snapshot is for watching.
func (w *liveWriter) write(dir string, job Job, s *stats.Snapshot, byAuth map[string]int, log *slog.Logger) {
	if dir == "" || w.started.IsZero() {
		return
	}
	err := writeLive(dir, newLive(w.pid, w.host, w.started, job, s, byAuth))
	if err != nil && !w.failed && log != nil {
		log.Warn("status snapshot not written: heed status cannot follow this run", "error", err)
	}
	w.failed = err != nil
}

// ErrNoLive is returned by ReadLive for a state with no status snapshot:
// one made before heed published them, or whose crawl has not written its
// first.
var ErrNoLive = errors.New("no status snapshot")

// ReadLive reads the status snapshot a crawl publishes in the state
// directory dir. It takes no lock and works while a crawl runs on the
// state; whether the snapshot is current is the caller's to judge: a
// crawl holds the state (Read gives a *BusyError) while it is, and its
// Updated says how fresh it is.
func ReadLive(dir string) (*Live, error) {
	b, err := os.ReadFile(filepath.Join(dir, liveName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("jobstate: %s: %w", dir, ErrNoLive)
	}
	if err != nil {
		return nil, fmt.Errorf("jobstate: status snapshot: %w", err)
	}
	l := new(Live)
	if err := json.Unmarshal(b, l); err != nil {
		return nil, fmt.Errorf("jobstate: status snapshot %s is damaged: %w", filepath.Join(dir, liveName), err)
	}
	return l, nil
}

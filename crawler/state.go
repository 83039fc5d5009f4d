package crawler

import (
	"errors"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// A crawl that survives. With WithState(dir) a crawl keeps everything it
// needs to go on after a pause (SIGINT, a cancelled context) or a crash
// (kill -9, power loss) in one directory: the frontier (queues, priorities,
// holds, the seen set), every robots.txt fetch (body, status, fetch time,
// the unreachable bookkeeping), the pacing of every authority, the page
// budget, the statistics and the skip log. Running the same crawl again
// on the same directory resumes it:
//
//   - A cancelled crawl pauses: in-flight requests finish, and the URLs
//     still queued stay queued (they are not skip-logged as interrupted).
//   - After a crash, requests that were in flight are fetched again;
//     nothing queued is lost and no skip-log record is lost or written
//     twice (every record is fsync'd before its request is done, and a
//     URL that already has a record gets no second one).
//   - Seeds are pushed on every start; those already seen are duplicates,
//     so a resumed crawl does not start over, and a finished one does
//     nothing.
//   - Hosts are paced across the restart: the saved pacing is restored,
//     and every authority is treated as if a request had just started, so
//     the first request after a restart waits one interval.
//
// State is the interface behind this; DirState keeps it on local disk, and
// a store shared by several processes (Redis) can implement it too.

// State is where a resumable crawl keeps what it needs to continue: the
// frontier, the robots.txt cache, pacing, the page budget, statistics, and
// the skip log with its one-record-per-URL rule. The crawler calls
// OpenFrontier first and once, then loads what earlier runs stored, and
// Close last (after closing the frontier). The methods other than
// OpenFrontier and Close may be called concurrently.
//
// Durability is the implementation's promise: SaveRobots, SaveBudget and
// Skips().Write must be durable when they return (a crash after them loses
// nothing); Checkpoint may lose the last checkpoint in a crash, which the
// crawler allows for (see the package doc of the crawler's state).
type State interface {
	// OpenFrontier opens the state's frontier, configured by the crawl's
	// options (gate, admission, order, leases per authority).
	OpenFrontier(opts ...frontier.Option) (frontier.Frontier, error)

	// Job returns the job's record: runs so far, whether the last one
	// finished. A new state returns the zero JobState.
	Job() (JobState, error)
	// ForEachRobots calls fn with every stored robots.txt record.
	ForEachRobots(fn func(*middleware.RobotsRecord) error) error
	// SaveRobots stores a robots.txt fetch, replacing the authority's
	// previous record.
	SaveRobots(rec *middleware.RobotsRecord) error
	// Pacing returns the stored pacing of every authority.
	Pacing() (map[string]politeness.AuthorityState, error)
	// Budget returns the stored budget admissions: Seq to authority.
	Budget() (map[uint64]string, error)
	// SaveBudget stores one budget admission.
	SaveBudget(seq uint64, authority string) error
	// Stats returns the stored statistics, or nil if none were stored.
	Stats() (*Snapshot, error)
	// Checkpoint stores the job record, the statistics and the pacing of
	// the authorities in cp.Pacing (those that changed), at once.
	Checkpoint(cp *Checkpoint) error
	// Skips returns the state's skip log.
	Skips() SkipStore

	// Close releases the state. The frontier is closed first, by the
	// crawl.
	Close() error
}

// SkipStore is a State's skip log: one record per URL, kept across runs.
type SkipStore interface {
	// Write appends rec, durably before it returns, unless rec.URL
	// already has a record; written reports whether it appended it.
	Write(rec *skiplog.Record) (written bool, err error)
	// Recorded returns the reason of the record url has, if any.
	Recorded(url string) (skiplog.Reason, bool)
	// Summary counts every record in the store, of every run.
	Summary() skiplog.Summary
}

// JobState is a resumable crawl's record of its runs.
type JobState struct {
	// Runs counts the runs started on the state, the current one
	// included.
	Runs int `json:"runs"`
	// Started is when the first run started; LastStart when the latest
	// did; Stopped when the latest ended (zero if it has not, or if its
	// process died).
	Started   time.Time `json:"started"`
	LastStart time.Time `json:"last_start"`
	Stopped   time.Time `json:"stopped,omitzero"`
	// Running is true from the start of a run until it ends: a state
	// that says so while no process holds it was left by a crash.
	Running bool `json:"running"`
	// Complete says the latest run ended with its frontier exhausted.
	Complete bool `json:"complete"`
	// Agent is the product token of the latest run; Seeds its seeds.
	Agent string   `json:"agent,omitempty"`
	Seeds []string `json:"seeds,omitempty"`
}

// Checkpoint is what a running crawl stores every second and when it
// stops.
type Checkpoint struct {
	Job    JobState
	Stats  *Snapshot
	Pacing map[string]politeness.AuthorityState
}

// StateInfo is what a crawl's Summary says of its state.
type StateInfo struct {
	// Dir is the state directory; empty for a State given by
	// WithStateStore that is not a DirState.
	Dir string
	// Job is the job record as the run left it.
	Job JobState
	// WasComplete says the state had finished before this run started.
	WasComplete bool
	// Fetched counts the pages this run fetched.
	Fetched int64
}

// WithState keeps the crawl's state in the directory dir (created if
// missing), so that a paused or killed crawl resumes where it stopped when
// it is run again with the same directory; see DirState for the layout.
// The skip log is then dir/skipped.jsonl, so WithSkipLog may not be given
// too, nor WithFrontier.
func WithState(dir string) Option { return func(c *config) { c.stateDir = dir } }

// WithStateStore keeps the crawl's state in s instead of a directory (or
// in a DirState the caller opened, to hold its lock before the crawl
// starts). The crawl closes s when it ends.
func WithStateStore(s State) Option { return func(c *config) { c.state = s } }

// checkState refuses options that contradict a state.
func (c *config) checkState() error {
	if c.stateDir == "" && c.state == nil {
		return nil
	}
	switch {
	case c.stateDir != "" && c.state != nil:
		return errors.New("crawler: WithState and WithStateStore both given")
	case c.skipOut != nil:
		return errors.New("crawler: WithSkipLog with a state: a resumable crawl keeps its skip log in its state (DIR/skipped.jsonl)")
	case c.frontier != nil:
		return errors.New("crawler: WithFrontier with a state: a resumable crawl uses its state's frontier")
	}
	return nil
}

// leasedReasons are the skip reasons that end a request the frontier
// handed out. A request that comes back after a crash with one of them
// already recorded was accounted for before the crash: it is not fetched.
// (The other reasons are recorded for URLs that were never queued, which
// may still be queued and fetched by another way.)
var leasedReasons = map[skiplog.Reason]bool{
	skiplog.RobotsDisallow: true, skiplog.RobotsUnreachable: true, skiplog.CrawlDelayTooLong: true,
	skiplog.MaxPages: true, skiplog.RedirectBlocked: true, skiplog.FetchError: true,
	skiplog.HostUnreachable: true,
}

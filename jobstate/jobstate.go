// Package jobstate keeps a crawl's job on local disk, so that it survives
// a pause or a crash: crawler.WithBackend(jobstate.Dir(dir)), or `heed
// crawl --state DIR`. Everything the crawl needs to go on after a pause
// (SIGINT, a cancelled context) or a crash (kill -9, power loss) is in one
// directory: the frontier (queues, priorities, holds, the seen set), every
// robots.txt fetch (body, status, fetch time, the unreachable
// bookkeeping), the pacing of every authority, the page budget, the
// statistics and the skip log. Running the same crawl again on the same
// directory resumes it:
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
// # The model
//
// The package is a backend.Backend: Dir(dir) opens and locks a DirState
// when the run begins, New(s) uses any State. State is the interface
// behind it; DirState keeps it on local disk (the durable frontier of
// package frontier/durable, on Pebble, holds the records beside the
// queue). Read reads a state without changing it while no crawl runs on
// it; Status reads it whether or not one does, for `heed status`: a
// running crawl publishes a small status snapshot (Live, DIR/status.json)
// at every checkpoint and when it stops, written to a temporary file
// renamed over the last, so that it can be watched without its lock and
// without ever waiting for the watcher.
//
// # Damage
//
// A state checks itself when it is opened, against what it recorded at its
// last checkpoint (DIR/integrity.json: the checkpoint's number, also kept
// in the frontier, and the skip log's length, record count and SHA-256).
// A missing frontier or skip log, a frontier whose log lost writes (cut or
// overwritten), a skip log that is shorter or whose recorded bytes were
// altered: each is refused with a *DamageError naming the damage, and
// nothing of the state is changed. A skip log longer than recorded is what
// a kill -9 leaves (records written after the last checkpoint) and is
// resumed. What was written after the last checkpoint and then lost is not
// detected.
//
// # Limits
//
// A state belongs to one process at a time (a lock file; a second crawl
// gets a *BusyError) and to one queue order (depth-first or not). The
// statistics and pacing are stored every second, so a kill -9 can lose up
// to a second of them (the pacing is made up for, above), never a queued
// URL, a robots.txt record, a budget admission or a skip record. A crawl
// keeps its skip log in the state (DIR/skipped.jsonl): WithSkipLog is
// refused. Feeds are the caller's: feed.Resume appends to a JSON Lines or
// CSV feed across runs. A state shared by several machines is the fleet
// backend's business (package fleet), not this one's.
package jobstate

import (
	"fmt"
	"io"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

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
// session allows for (see the package doc).
type State interface {
	// OpenFrontier opens the state's frontier, configured by the crawl's
	// options (gate, admission, order, leases per authority).
	OpenFrontier(opts ...frontier.Option) (frontier.Frontier, error)

	// Job returns the job's record: runs so far, whether the last one
	// finished. A new state returns the zero Job.
	Job() (Job, error)
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
	Stats() (*stats.Snapshot, error)
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

// Job is a resumable crawl's record of its runs.
type Job struct {
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
	// Killed counts the runs that ended without closing (a crash, kill
	// -9). Their statistics are those of their last checkpoint, stored
	// every second, so the job's page, byte and status counts may fall
	// short of what those runs fetched; the skip-log counts and the
	// frontier's are exact, rebuilt from the skip log and the frontier.
	Killed int `json:"killed,omitempty"`
	// Agent is the job's product token; Seeds its seeds; Scope its scope
	// options (backend.Job.Scope). A run with another agent, other seeds
	// or another scope is refused with a *MismatchError.
	Agent string   `json:"agent,omitempty"`
	Seeds []string `json:"seeds,omitempty"`
	Scope []string `json:"scope,omitempty"`
}

// Checkpoint is what a running crawl stores every second and when it
// stops.
type Checkpoint struct {
	Job    Job
	Stats  *stats.Snapshot
	Pacing map[string]politeness.AuthorityState
}

// Info is what a crawl's Summary says of its state (Summary.Backend).
type Info struct {
	// Dir is the state directory; empty for a State given to New that is
	// not a DirState.
	Dir string
	// Job is the job record as the run left it.
	Job Job
	// WasComplete says the state had finished before this run started.
	WasComplete bool
	// Fetched counts the pages this run fetched.
	Fetched int64
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

// Complete says the job is done: its last run ended with nothing queued
// or in flight.
func (i *Info) Complete() bool { return i.Job.Complete }

// Format writes the state of the job in one line.
func (i *Info) Format(w io.Writer) error {
	state := "paused: run it again to resume"
	if i.Job.Complete {
		state = "complete"
	}
	dir := i.Dir
	if dir == "" {
		dir = "(a state store)"
	}
	if _, err := fmt.Fprintf(w, "state %s: run %d, %s; this run fetched %d pages\n", dir, i.Job.Runs, state, i.Fetched); err != nil {
		return err
	}
	if n := i.Approximate(); n != "" {
		_, err := fmt.Fprintln(w, n)
		return err
	}
	return nil
}

// Approximate says which of the job's counts are approximate, and why,
// when an earlier run was killed (Job.Killed); "" when all are exact.
func (i *Info) Approximate() string { return ApproximateNote(i.Job.Killed) }

// ApproximateNote is the warning on the job's counts after killed runs
// (Job.Killed); "" for none.
func ApproximateNote(killed int) string {
	if killed == 0 {
		return ""
	}
	return fmt.Sprintf("APPROXIMATE: %d runs of this job were killed before they closed; their pages, bytes and statuses are counted as of their last checkpoint (stored every second), so the job's page counts may fall short of what was fetched; skip-log and queue counts are exact", killed)
}

// InfoOf returns what a crawl's summary says of its state
// (crawler.Summary.Backend), when the crawl kept its job with this
// package; nil otherwise.
func InfoOf(s backend.Summary) *Info {
	i, _ := s.(*Info)
	return i
}

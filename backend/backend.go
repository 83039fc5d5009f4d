// Package backend is the seam between heed's engine (package crawler) and
// where a crawl's job lives: its frontier, the pacing of its authorities,
// what it learns of robots.txt, its skip log, and what a stop means. The
// engine runs the same loop whatever the backend: it asks a Session for
// those parts and has no branch for any mode.
//
// heed has three backends. Memory, the default, keeps everything in this
// process, and a cancelled crawl drains its queue into the skip log.
// Package jobstate keeps the job on local disk: a cancel pauses it and the
// next run resumes it. Package fleet shares one crawl through Redis among
// several processes: a process that stops leaves its queue to the others.
// A program links only the backends it imports, as database/sql links
// only its drivers; crawler.WithBackend chooses one.
//
// # Contract
//
//   - The engine calls Backend.Check once, in crawler.New, and Open once
//     per run; a Session's methods come in the order Session's doc gives.
//     Record, Accounted and Count are called by the workers concurrently;
//     the others by the run's goroutine.
//   - The engine hands Record every skip-log record it makes, its URL in
//     canonical form; a backend keeps one record per URL (all three do)
//     and returns false for a URL it has one for, which the engine then
//     does not count again.
//   - Finish runs once the workers are done, for a run whose Start
//     succeeded, before the engine closes the frontier. Close runs last,
//     after the frontier is closed, for every session Open returned,
//     whatever happened after (a failed wiring or Start included).
//   - A backend imports no engine: what it may ask of the run is the
//     Engine its Job embeds (Resume, Discover, Snapshot), nil in Check.
//
// # Limits
//
// Memory's skip log keeps the URLs it has a record for in memory (see
// skiplog.OnceWriter for the cost per URL), as the frontier keeps the URLs
// it has seen. A backend shapes the chain only through Session.Chain (the
// robots stage's store, the budget's admissions) and the pacer it returns.
package backend

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// Backend keeps a crawl's job.
type Backend interface {
	// Check refuses settings the backend cannot honour (crawler.New
	// returns its error), before anything is opened. The job has no seeds
	// and no Engine yet.
	Check(j *Job) error
	// Open begins one run of the job. The engine calls it once, with the
	// run's context, before anything is fetched, and ends the session with
	// Close whatever happens (after Finish, for a run that started). ctx
	// bounds the opening only: a backend whose store does not answer gives
	// up when the run is cancelled; work that outlives the opening starts
	// in Session.Start.
	Open(ctx context.Context, j *Job) (Session, error)
}

// Session is one run of a job in its backend, in the order the engine
// uses it: Pacer and Frontier while it wires the run, Chain, then Start
// before the seeds are queued; Accounted, Record and Count while it
// crawls; Stop, Finish and Close at the end. Record, Accounted and Count
// are called by the workers concurrently.
type Session interface {
	// Pacer paces the run's requests: the frontier's gate, the politeness
	// stage's slots, the Crawl-delay from robots.txt.
	Pacer() Pacer
	// Frontier is the job's queue, opened with Job.Frontier and gated by
	// Pacer.
	Frontier() frontier.Frontier
	// Chain lets the backend keep what the chain's stages learn: a store
	// for the robots stage's fetches (RobotsPolicy.Shared, .Save), the
	// budget's admissions (Budget.Save).
	Chain(robots *middleware.RobotsPolicy, budget *middleware.Budget)
	// Start is called once the run is wired, before the seeds are
	// queued, with the run's context: a backend restores what earlier
	// runs stored (Engine.Resume) and starts its background work.
	Start(ctx context.Context) error

	// Accounted reports whether a request the frontier handed out was
	// accounted for by an earlier run (it was in flight at a crash and
	// its record had been written): the engine then ends it unfetched.
	Accounted(req *frontier.Request) bool
	// Record writes a skip-log record to the job's skip log. It returns
	// false for a URL the job has a record for already, which the engine
	// then does not count again.
	Record(rec *skiplog.Record) bool
	// Count is told of every event the crawl counts, on the worker that
	// has it. It has no context: a backend that writes events to a store
	// waits for it on the run's context, the one Start was given (package
	// fleet does), and queues what it could not write rather than hold
	// the worker once the run is cancelled.
	Count(e Event)

	// Stop says what becomes of the URLs still queued when the run is
	// interrupted.
	Stop() StopPolicy
	// Finish ends the run once the workers are done (the frontier is
	// still open): the backend stores its last state and completes the
	// result. Its error fails the run.
	Finish(res *Result) error
	// Close releases the session, after the frontier is closed.
	Close() error
}

// Admitter is implemented by a Session whose frontier may not ask the
// engine's admission (the WithAdmit of Job.Frontier): Memory given a
// frontier of the caller's. Admits reports whether it does; the engine
// then records itself what only the admission would have. A Session that
// does not implement it opens its frontier with Job.Frontier.
type Admitter interface {
	Admits() bool
}

// Pacer is what a run needs of its pacer: the frontier's gate, the
// politeness stage's slots, and the Crawl-delay from robots.txt.
// politeness.Pacer is one; package fleet's is another.
//
// SetCrawlDelay is called on the run's context for work (the engine's,
// not cancelled by an interrupt but when the run is over): a pacer that
// writes the Crawl-delay to a store stops waiting for it then.
type Pacer interface {
	frontier.Gate
	middleware.Pacer
	SetCrawlDelay(ctx context.Context, authority string, d time.Duration) error
}

// StopPolicy is what a backend does with the URLs still queued when a run
// is interrupted.
type StopPolicy int

const (
	// Drain accounts for every URL still queued in the skip log
	// (interrupted, or robots-unreachable for an authority whose
	// robots.txt is unreachable): the crawl of one process.
	Drain StopPolicy = iota
	// Pause keeps them queued for the next run of the job.
	Pause
	// Leave leaves them to the other processes of a shared crawl.
	Leave
)

// EventKind says what an Event counts.
type EventKind int

const (
	// Fetched: a response was downloaded (Authority, Status, Bytes, and
	// the leased Request it answers). The request's lease ends after it.
	Fetched EventKind = iota + 1
	// Skipped: a skip-log record was written (Authority, Reason).
	Skipped
	// RobotsFetched: a robots.txt was fetched (Authority, Robots: its
	// state, "available", "unavailable" or "unreachable").
	RobotsFetched
)

// Event is one thing the crawl counts, as a backend hears of it.
type Event struct {
	Kind      EventKind
	Authority string
	Status    int
	Bytes     int
	Reason    skiplog.Reason
	Robots    string
	// Request is the frontier's request a Fetched event is about, so
	// that a backend can write the count with the request's lease end
	// (package fleet does); nil for the other kinds.
	Request *frontier.Request
}

// Result is the part of a run's summary (crawler.Summary) the backend
// completes in Finish.
type Result struct {
	// Stats are the run's statistics, set by the engine.
	Stats stats.Snapshot
	// Skipped counts the job's skip-log records (of every run, for a job
	// that is resumed).
	Skipped skiplog.Summary
	// Summary is the backend's own account of the job; nil for Memory.
	Summary Summary
}

// Summary is a backend's own account of the job at the end of a run
// (crawler.Summary.Backend). Its concrete type is the backend's (package
// jobstate's, package fleet's).
type Summary interface {
	// Complete says nothing of the job is left: no URL queued or in
	// flight anywhere.
	Complete() bool
	// Format writes the account in a few lines.
	Format(w io.Writer) error
}

// Job is a run as its backend sees it: the crawl's settings, and the
// engine it may call.
type Job struct {
	// Engine is the run's engine; nil in Check.
	Engine
	// Agent is the crawl's product token; Seeds the run's seeds (nil in
	// Check).
	Agent string
	Seeds []string
	// Scope describes the options that decide which URLs belong to the
	// crawl (allowed domains, include and exclude patterns, the maximum
	// depth, sitemap sources and scope), one "name=value" line each in a
	// fixed order: a backend that keeps a job across runs compares it, so
	// that another command never silently takes over the job.
	Scope []string
	// Pacing are the politeness options the crawl's settings make (floor,
	// concurrency, Crawl-delay cap, logger, start log), for the backend's
	// pacer.
	Pacing []politeness.Option
	// Frontier are the options of the job's frontier: the engine's
	// admission, the order, the leases per authority. The backend adds its
	// pacer as the gate.
	Frontier []frontier.Option
	// Check is the side-effect-free part of the admission in Frontier
	// (nil in Check): the scope check, and a refusal of the links only the
	// admission may record. A frontier that asks it first may queue what
	// it passes without the admission (redisfrontier.WithCheck); what it
	// refuses must still go to the admission, which refuses it too.
	Check func(*frontier.Request) error
	// Timeout is the timeout of one request.
	Timeout time.Duration
	// SkipLog is where crawler.WithSkipLog writes the skip log; nil
	// without it.
	SkipLog io.Writer
	// Budget says a page budget is set (crawler.WithMaxPages,
	// WithMaxPagesPerHost).
	Budget bool
	// Logger is the crawl's logger; Now its clock (crawler.WithClock).
	Logger *slog.Logger
	Now    func() time.Time
}

// Engine is what a backend may ask of the run it serves.
type Engine interface {
	// Resume takes back what earlier runs of the job stored, before the
	// seeds are queued: each robots.txt record is restored (the file is
	// not fetched again before its max age, and an unreachable one keeps
	// its give-up clock; a record that cannot be used is logged and the
	// file fetched again), then the budget and the statistics. It returns
	// the restored entries, whose Crawl-delay the backend's pacer needs.
	Resume(s *Saved) []*middleware.RobotsEntry
	// Discover queues the sitemaps a robots.txt entry lists, as when it
	// was fetched (when the crawl reads sitemaps): a resumed job does it
	// for its restored entries, since a crash between a record and those
	// pushes would lose them. Pushing them again costs a duplicate each.
	Discover(e *middleware.RobotsEntry)
	// Snapshot returns the run's statistics now.
	Snapshot() stats.Snapshot
}

// Saved is what earlier runs of a job stored, for Engine.Resume.
type Saved struct {
	// Runs counts the job's runs, this one included.
	Runs int
	// Stats is the statistics last stored; nil before the first.
	Stats *stats.Snapshot
	// Skips counts the job's skip-log records, of every run.
	Skips skiplog.Summary
	// Robots are the robots.txt records stored.
	Robots []*middleware.RobotsRecord
	// Budget are the budget's admissions: Seq to authority.
	Budget map[uint64]string
}

// ErrNotQueued is wrapped by the error of a Push a backend gave up on
// while the process was stopping (its store unreachable): the URL was not
// queued, and the engine skip-logs it as interrupted so that it is still
// accounted for.
var ErrNotQueued = errors.New("not queued while the process stopped")

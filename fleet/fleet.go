// Package fleet shares one crawl among several heed processes, on one
// machine or many, through one Redis database: with
// crawler.WithBackend(b), b made by New, a crawler is one process of the
// crawl. The crawl has:
//
//   - One frontier (package frontier/redisfrontier): one queue and one
//     seen set for the crawl, the scope check as its admission, and leases
//     per authority across the fleet. A request handed out is leased and
//     the lease renewed while the process works on it; the requests of a
//     process that dies come back after the lease timeout, for another
//     process to fetch.
//   - One pacer (package politeness/redispacer), which is also the
//     frontier's gate: an authority's requests are spaced fleet-wide,
//     whichever process sends them, with one request in flight per
//     authority with an interval.
//   - One robots.txt cache: one process fetches an authority's robots.txt
//     while the others wait for its record and decide by the same file.
//   - Crawl-wide counters of pages, bytes, statuses and skips, summed over
//     the processes (the Summary, as crawler.Summary.Backend).
//
// # The model
//
// Each process writes its own skip log (crawler.WithSkipLog); heed skiplog merge
// (skiplog.Merge) combines them. A process that stops (its context is
// cancelled) finishes its requests in flight and leaves the queue to the
// others: its URLs are not skip-logged as interrupted. While Redis is
// unreachable or restarting, processes wait and retry with backoff and
// keep what they hold (leases are renewed, unqueued links are pushed
// again), and say so in the log. A Redis that restarts must persist its
// data (an append-only file) for the crawl to survive it.
//
// # Watching and ending a crawl
//
// Every process records a heartbeat in Redis (WithHeartbeat, default
// every DefaultHeartbeat) and removes it when it stops; one that misses
// three is no longer live (it died, or lost Redis). The process that sees
// the crawl end, nothing queued or in flight anywhere, records it as
// finished, with when and the crawl-wide counts; a process that would
// join a finished crawl is refused with a *FinishedError (a program
// checks Fleet.Finished before it opens its outputs), so that a rerun
// does not pass for a crawl of nothing. ReadStatus reads a crawl without
// joining it (running, paused or finished; counters, queue per
// authority, leases outstanding, processes and their heartbeats); Clear
// deletes its keys to start it over, and refuses while a process is live
// unless forced.
//
// # What it does not do
//
// A page budget (WithMaxPages, WithMaxPagesPerHost) is not shared and is
// refused; a durable state (package jobstate) and a shared crawl are two
// backends, and a crawl has one. The Redis store, its robots.txt cache
// and counters are package redisstore's; the queue is
// frontier/redisfrontier's and the pacing politeness/redispacer's: this
// package makes a crawl's backend of them.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness/redispacer"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
	"github.com/redis/go-redis/v9"
)

// DefaultLeaseTimeout is how long a shared crawl's lease on a request,
// and its pacer's slot for a request in flight, last without renewal
// (WithLeaseTimeout).
const DefaultLeaseTimeout = 30 * time.Second

// Option is an optional setting of a shared crawl, passed to New.
type Option func(*config)

type config struct {
	client   redis.UniversalClient
	crawlID  string
	lease    time.Duration
	retryFor time.Duration
	logger   *slog.Logger
	// heartbeat is how often the process records that it is alive
	// (procs.go).
	heartbeat time.Duration
}

// Fleet is the backend of one process of the crawl named crawlID in a
// Redis database (New); give it to crawler.WithBackend.
type Fleet struct{ cfg *config }

// New returns the backend that makes a crawler one process of the crawl
// named crawlID in the Redis database rdb is connected to; every process
// of the crawl uses the same crawlID and the same settings. The crawl's
// keys start with Prefix(crawlID). A crawl id is letters, digits, '.', '_'
// and '-', at most 100 of them. The client is the caller's to close, after
// Run.
func New(rdb redis.UniversalClient, crawlID string, opts ...Option) (*Fleet, error) {
	rc := &config{client: rdb, crawlID: crawlID, lease: DefaultLeaseTimeout, retryFor: redisstore.DefaultRetryFor, heartbeat: DefaultHeartbeat}
	for _, o := range opts {
		if o != nil {
			o(rc)
		}
	}
	switch {
	case rc.client == nil:
		return nil, errors.New("fleet: New without a client")
	case !crawlIDPattern.MatchString(rc.crawlID):
		return nil, fmt.Errorf("fleet: crawl id %q: use letters, digits, '.', '_' and '-' (at most 100)", rc.crawlID)
	case rc.lease <= 0:
		return nil, fmt.Errorf("fleet: lease timeout %v is not positive", rc.lease)
	case rc.heartbeat <= 0:
		return nil, fmt.Errorf("fleet: heartbeat %v is not positive", rc.heartbeat)
	}
	return &Fleet{cfg: rc}, nil
}

// Check refuses a page budget, which would be per process.
func (b *Fleet) Check(j *backend.Job) error {
	if j.Budget {
		return errors.New("fleet: a page budget (WithMaxPages, WithMaxPagesPerHost) is per process and cannot be shared through Redis")
	}
	return nil
}

// Open makes the process's store, pacer, robots.txt cache, counters and
// frontier. Reading the crawl's settings in Redis waits while Redis is
// unreachable, at most the store's retry budget, and never past the end
// of ctx, the run's.
func (b *Fleet) Open(ctx context.Context, j *backend.Job) (backend.Session, error) {
	return openFleet(ctx, b.cfg, j)
}

// Finished returns the crawl's finished record, or nil while it has
// none: a program checks it before it opens its outputs, as `heed crawl
// --redis` does, so that rerunning a finished crawl says so instead of
// starting an empty skip log.
func (b *Fleet) Finished(ctx context.Context) (*Finished, error) {
	store, err := openStore(b.cfg.client, b.cfg.crawlID)
	if err != nil {
		return nil, err
	}
	return readFinished(ctx, store)
}

// WithLeaseTimeout sets how long a lease on a request and a pacer
// slot last unless renewed (default DefaultLeaseTimeout): how long
// the requests of a process that died stay out before another process
// takes them, and how long its slot holds its authority.
func WithLeaseTimeout(d time.Duration) Option {
	return func(c *config) { c.lease = d }
}

// WithRedisRetryFor sets how long one call to Redis keeps retrying while
// Redis is unreachable before the crawler hears of it (default 1 minute;
// see redisstore.WithRetryFor). The crawler then waits and tries again
// for as long as it runs; this only sets how often it says so.
func WithRetryFor(d time.Duration) Option {
	return func(c *config) { c.retryFor = d }
}

// WithLogger sets the logger for what the shared crawl has to say:
// Redis becoming unreachable and reachable again, what the process does
// meanwhile, lost leases (default: the crawler's logger,
// crawler.WithLogger).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

var crawlIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// Prefix returns the key prefix of the crawl named crawlID.
func Prefix(crawlID string) string { return "heed:" + crawlID + ":" }

// fleet is a run's side of a shared crawl: the store and what is made
// from it. It is the run's backend.Session.
type fleet struct {
	cfg      *config
	j        *backend.Job
	skips    *backend.SkipLog
	log      *slog.Logger
	store    *redisstore.Store
	pacer    *redispacer.Pacer
	front    *redisfrontier.Frontier
	wrapped  *fleetFrontier
	robots   *redisstore.RobotsCache
	counters *fleetCounters
	beat     *heartbeat // this process's entry in the crawl's processes (procs.go)

	stop chan struct{} // closed when the process stops taking work
	// intake is the run's context (Open's, then Start's): the counted
	// events are written on it (countContext).
	intake context.Context

	mu             sync.Mutex
	queued, leased int // the crawl's, as last read
	down           time.Time

	cancel    context.CancelFunc
	bg        sync.WaitGroup
	once      sync.Once
	closeOnce sync.Once
	started   bool // Start ran: the process is in the crawl's processes
}

// openFleet makes the store, the pacer and the frontier.
func openFleet(ctx context.Context, rc *config, j *backend.Job) (*fleet, error) {
	log := rc.logger
	if log == nil {
		log = j.Logger
	}
	store, err := redisstore.NewStore(rc.client, Prefix(rc.crawlID),
		redisstore.WithLogger(log), redisstore.WithRetryFor(rc.retryFor))
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	pacer, err := redispacer.New(store,
		redispacer.WithPacing(j.Pacing...),
		redispacer.WithSlotTimeout(rc.lease),
		redispacer.WithLogger(log),
	)
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	f := &fleet{cfg: rc, j: j, log: log, store: store, pacer: pacer, skips: backend.NewSkipLog(j),
		robots: redisstore.NewRobotsCache(store), stop: make(chan struct{}), intake: ctx}
	f.counters = newFleetCounters(redisstore.NewCounters(store), f)
	// Opening reads the crawl's settings in Redis: the wait ends with the
	// run, or with the store's retry budget.
	ctx, cancel := context.WithTimeout(ctx, rc.retryFor+10*time.Second)
	defer cancel()
	fin, err := readFinished(ctx, store)
	if err != nil {
		pacer.Close()
		return nil, fmt.Errorf("fleet: %w", err)
	}
	if fin != nil {
		pacer.Close()
		return nil, &FinishedError{CrawlID: rc.crawlID, Finished: *fin}
	}
	f.beat = newHeartbeat(store, rc.heartbeat)
	// The scope check goes first: a link it passes is queued in one
	// round trip; one it refuses goes to the admission, which records it
	// once (redisfrontier.WithCheck).
	fr, err := redisfrontier.NewFrontier(ctx, store, redisfrontier.WithLeaseTimeout(rc.lease),
		redisfrontier.WithCheck(j.Check),
		redisfrontier.WithFrontierOptions(append(j.Frontier, frontier.WithGate(pacer))...))
	if err != nil {
		pacer.Close()
		return nil, fmt.Errorf("fleet: %w", err)
	}
	f.front, f.wrapped = fr, &fleetFrontier{Frontier: fr, fl: f}
	return f, nil
}

// Pacer is the fleet-wide pacer, as the crawl uses it (fleetPacer).
func (f *fleet) Pacer() backend.Pacer { return fleetPacer{Pacer: f.pacer, fl: f} }

// Frontier is the crawl's frontier in Redis, waiting out Redis outages.
func (f *fleet) Frontier() frontier.Frontier { return f.wrapped }

// Chain shares the robots.txt cache: one process fetches an authority's
// robots.txt while the others wait for its record.
func (f *fleet) Chain(robots *middleware.RobotsPolicy, _ *middleware.Budget) {
	robots.Shared = f.robots
	robots.SharedLockTTL = f.j.Timeout*6 + 10*time.Second // a fetch and its five redirects
}

// Accounted is false: a lease another process lost was not ended, so its
// request was not accounted for.
func (f *fleet) Accounted(*frontier.Request) bool { return false }

// Record writes the record to this process's skip log.
func (f *fleet) Record(rec *skiplog.Record) bool { return f.skips.Record(rec) }

// Count adds the event to the crawl-wide counters, on the worker that has
// it and on the run's context (countContext): Count has no context of its
// own, and the run's is the one that says when to stop waiting for Redis.
func (f *fleet) Count(e backend.Event) {
	switch e.Kind {
	case backend.Fetched:
		f.counters.fetched(e.Request, e.Authority, e.Status, e.Bytes)
	case backend.Skipped:
		f.counters.skipped(e.Authority, e.Reason)
	case backend.RobotsFetched:
		f.counters.named(robotsCounter+e.Robots, 1)
	}
}

// Stop leaves the queue to the other processes.
func (f *fleet) Stop() backend.StopPolicy { return backend.Leave }

// Finish stops the background work and reads the crawl-wide counts.
func (f *fleet) Finish(res *backend.Result) error {
	f.close()
	s := f.summary()
	res.Summary = s
	if s.Done && s.Err == "" && (s.Pages > 0 || len(s.Skipped) > 0) {
		f.finished(s)
	}
	return f.skips.Finish(res)
}

// Close stops the pacer's renewals (if Finish did not).
func (f *fleet) Close() error {
	f.close()
	return nil
}

// Start begins the background work: the counters' flusher and the
// crawl's queue sizes, read twice a second for progress. intake is the
// run's context: when it ends, the process is stopping. The work itself
// outlives it (it ends with Finish), so it runs on a context that keeps
// intake's values but not its cancellation.
func (f *fleet) Start(intake context.Context) error {
	f.intake = intake
	ctx, cancel := context.WithCancel(context.WithoutCancel(intake))
	f.cancel = cancel
	f.bg.Add(4)
	go func() {
		defer f.bg.Done()
		select {
		case <-intake.Done():
			f.stopping()
		case <-ctx.Done():
		}
	}()
	go f.counters.run(ctx)
	go f.readSizes(ctx)
	go f.beat.run(ctx, f)
	f.started = true
	return nil
}

// stoppingCountWait bounds the write of a counted event once the run is
// cancelled: a Redis that answers does it in a round trip of
// milliseconds; one that does not is not waited for.
const stoppingCountWait = 2 * time.Second

// countContext returns the context a worker writes a counted event on,
// and its cancel. While the run lasts, it is the run's context: the write
// waits for Redis for the store's retry budget, but no longer than the
// run. Once the run is cancelled, it is a short wait (stoppingCountWait)
// that keeps the run's values but not its cancellation: a stopping
// process still writes the counts of its last requests before their
// leases end, so that the process that sees the crawl end counts them,
// but does not hold its workers for the retry budget while Redis is
// unreachable. An event not written is queued for the background flusher
// and the end of the run (fleetCounters.add), not lost.
func (f *fleet) countContext() (context.Context, context.CancelFunc) {
	if f.intake.Err() == nil {
		return context.WithCancel(f.intake)
	}
	return context.WithTimeout(context.WithoutCancel(f.intake), stoppingCountWait)
}

// endContext returns the context of a write or read at the end of the
// run (the last counts, the leave, the crawl-wide summary, the finished
// mark), and its cancel: it keeps the run's values (a trace, a logger's
// attributes, whatever the caller put there) but not its cancellation,
// since a run ended by an interrupt still settles its accounts, and it
// gives up after d.
func (f *fleet) endContext(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(f.intake), d)
}

// stopping marks the process as no longer taking work.
func (f *fleet) stopping() { f.once.Do(func() { close(f.stop) }) }

func (f *fleet) isStopping() bool {
	select {
	case <-f.stop:
		return true
	default:
		return false
	}
}

func (f *fleet) readSizes(ctx context.Context) {
	defer f.bg.Done()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		f.refreshSizes(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (f *fleet) refreshSizes(ctx context.Context) {
	if f.front == nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	q, l, err := f.front.Sizes(rctx)
	cancel()
	if err != nil {
		return // the last figures stand; the store logs the outage
	}
	f.mu.Lock()
	f.queued, f.leased = q, l
	f.mu.Unlock()
}

func (f *fleet) sizes() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued, f.leased
}

// unavailable waits before a call that failed because Redis is
// unreachable is made again, and says so: once when the outage starts,
// then every minute. It returns ctx's error if ctx ends first.
func (f *fleet) unavailable(ctx context.Context, op string, attempt int, err error) error {
	f.mu.Lock()
	now := time.Now()
	say := f.down.IsZero() || now.Sub(f.down) >= time.Minute
	if say {
		f.down = now
	}
	f.mu.Unlock()
	if say {
		f.log.Warn("redis unavailable: this process keeps what it holds and retries",
			"op", op, "attempt", attempt+1, "error", err.Error())
	}
	d := min(time.Second<<min(attempt, 4), 10*time.Second)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// close stops the background work, writes the counts not yet written
// (for at most the store's retry budget) and stops the pacer's renewals;
// once.
func (f *fleet) close() {
	f.closeOnce.Do(func() {
		f.stopping()
		if f.cancel != nil {
			f.cancel()
		}
		f.bg.Wait()
		f.counters.flushAll(f.cfg.retryFor)
		if f.started {
			ctx, cancel := f.endContext(min(f.cfg.retryFor, 5*time.Second))
			err := f.beat.leave(ctx)
			cancel()
			if err != nil {
				f.log.Warn("this process is still listed among the crawl's processes until its heartbeat ages", "error", err.Error())
			}
		}
		f.pacer.Close()
	})
}

// Summary is what a process of a shared crawl reports of the whole crawl
// when it stops (crawler.Summary.Backend): the counts of every process,
// read from Redis, and what is left (see stats.Shared, its Format and
// Complete). crawler.Summary.Stats holds this process's own counts.
type Summary = stats.Shared

// summary reads the crawl-wide counts.
func (f *fleet) summary() *Summary {
	ctx, cancel := f.endContext(f.cfg.retryFor + 5*time.Second)
	defer cancel()
	tot, err := f.counters.c.Read(ctx)
	if err != nil {
		return &Summary{CrawlID: f.cfg.crawlID, Err: err.Error()}
	}
	cn, err := f.front.Counts(ctx)
	if err != nil {
		return &Summary{CrawlID: f.cfg.crawlID, Err: err.Error()}
	}
	return Summarize(f.cfg.crawlID, tot, cn)
}

// Summarize is the summary of the crawl crawlID from its counters and its
// queue's counts, as read from Redis by a process of the crawl or by a
// reader that does not join it (heed's fleet page).
func Summarize(crawlID string, tot *redisstore.Totals, cn redisfrontier.Counts) *Summary {
	s := &Summary{CrawlID: crawlID, Pages: tot.Pages, Bytes: tot.Bytes, Statuses: tot.Statuses,
		Skipped: map[skiplog.Reason]int64{}, Robots: map[string]int64{}}
	for r, n := range tot.Skipped {
		s.Skipped[skiplog.Reason(r)] = n
	}
	for name, n := range tot.Named {
		if st, ok := strings.CutPrefix(name, robotsCounter); ok {
			s.Robots[st] = n
		}
	}
	s.Queued, s.Leased, s.Reclaimed = cn.Queued, cn.Leased, cn.Reclaimed
	s.Done = cn.Queued == 0 && cn.Leased == 0 && cn.Admitting == 0
	return s
}

// finished records the crawl as finished, with its counts, by the
// store's clock; a failure is logged (the crawl is finished all the same,
// and a rerun then finds nothing to do).
func (f *fleet) finished(s *Summary) {
	ctx, cancel := f.endContext(min(f.cfg.retryFor, 5*time.Second))
	defer cancel()
	at, err := f.store.Now(ctx)
	if err == nil {
		err = markFinished(ctx, f.store, Finished{At: at, By: f.beat.proc.ID, Pages: s.Pages, Bytes: s.Bytes, Skipped: s.SkippedTotal()})
	}
	if err != nil {
		f.log.Warn("the crawl is finished but could not be recorded as such", "error", err.Error())
	}
}

// SummaryOf returns what a crawl's summary says of the whole shared crawl
// (crawler.Summary.Backend), when the crawl was one process of a fleet;
// nil otherwise.
func SummaryOf(s backend.Summary) *Summary {
	fs, _ := s.(*Summary)
	return fs
}

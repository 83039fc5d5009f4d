package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/politeness/redispacer"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/redis/go-redis/v9"
)

// A crawl that outgrows one machine. With WithRedis, a crawler is one
// process of a crawl shared by several heed processes, on one machine or
// many, through one Redis database:
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
//     the processes (Summary.Fleet).
//
// Each process writes its own skip log (WithSkipLog); heed skiplog merge
// (skiplog.Merge) combines them. A process that stops (its context is
// cancelled) finishes its requests in flight and leaves the queue to the
// others: its URLs are not skip-logged as interrupted. While Redis is
// unreachable or restarting, processes wait and retry with backoff and
// keep what they hold (leases are renewed, unqueued links are pushed
// again), and say so in the log. A Redis that restarts must persist its
// data (an append-only file) for the crawl to survive it.
//
// What it does not do: a page budget (WithMaxPages, WithMaxPagesPerHost)
// is not shared and is refused; a durable state (WithState) and a shared
// crawl are two different things and cannot be combined.

// DefaultRedisLeaseTimeout is how long a shared crawl's lease on a request,
// and its pacer's slot for a request in flight, last without renewal
// (WithRedisLeaseTimeout).
const DefaultRedisLeaseTimeout = 30 * time.Second

// RedisOption is an optional setting of a shared crawl, passed to
// WithRedis.
type RedisOption func(*redisConfig)

type redisConfig struct {
	client   redis.UniversalClient
	crawlID  string
	lease    time.Duration
	retryFor time.Duration
	logger   *slog.Logger
}

// WithRedis makes the crawler one process of the crawl named crawlID in
// the Redis database rdb is connected to; every process of the crawl uses
// the same crawlID and the same settings. The crawl's keys start with
// "heed:<crawlID>:". A crawl id is letters, digits, '.', '_' and '-', at
// most 100 of them. The client is the caller's to close, after Run.
func WithRedis(rdb redis.UniversalClient, crawlID string, opts ...RedisOption) Option {
	rc := &redisConfig{client: rdb, crawlID: crawlID, lease: DefaultRedisLeaseTimeout, retryFor: redisstore.DefaultRetryFor}
	for _, o := range opts {
		if o != nil {
			o(rc)
		}
	}
	return func(c *config) { c.redis = rc }
}

// WithRedisLeaseTimeout sets how long a lease on a request and a pacer
// slot last unless renewed (default DefaultRedisLeaseTimeout): how long
// the requests of a process that died stay out before another process
// takes them, and how long its slot holds its authority.
func WithRedisLeaseTimeout(d time.Duration) RedisOption {
	return func(c *redisConfig) { c.lease = d }
}

// WithRedisRetryFor sets how long one call to Redis keeps retrying while
// Redis is unreachable before the crawler hears of it (default 1 minute;
// see redisstore.WithRetryFor). The crawler then waits and tries again
// for as long as it runs; this only sets how often it says so.
func WithRedisRetryFor(d time.Duration) RedisOption {
	return func(c *redisConfig) { c.retryFor = d }
}

// WithRedisLogger sets the logger for what the shared crawl has to say:
// Redis becoming unreachable and reachable again, what the process does
// meanwhile, lost leases (default: the crawler's logger, WithLogger).
func WithRedisLogger(l *slog.Logger) RedisOption {
	return func(c *redisConfig) { c.logger = l }
}

var crawlIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// RedisPrefix returns the key prefix of the crawl named crawlID.
func RedisPrefix(crawlID string) string { return "heed:" + crawlID + ":" }

// checkRedis refuses options a shared crawl cannot honour.
func (c *config) checkRedis() error {
	rc := c.redis
	if rc == nil {
		return nil
	}
	switch {
	case rc.client == nil:
		return errors.New("crawler: WithRedis without a client")
	case !crawlIDPattern.MatchString(rc.crawlID):
		return fmt.Errorf("crawler: crawl id %q: use letters, digits, '.', '_' and '-' (at most 100)", rc.crawlID)
	case rc.lease <= 0:
		return fmt.Errorf("crawler: lease timeout %v is not positive", rc.lease)
	case c.stateDir != "" || c.state != nil:
		return errors.New("crawler: WithRedis and WithState: a shared crawl keeps its state in Redis")
	case c.frontier != nil:
		return errors.New("crawler: WithRedis and WithFrontier: a shared crawl uses the Redis frontier")
	case c.maxPages > 0 || c.maxPerHost > 0:
		return errors.New("crawler: a page budget (WithMaxPages, WithMaxPagesPerHost) is per process and cannot be shared with WithRedis")
	}
	return nil
}

// errRecorded is the admission error of a URL the scope check refused in
// a shared crawl: the admission wrote its skip record already.
var errRecorded = errors.New("crawler: refused by the scope check, recorded")

// admitFleet is a shared crawl's admission function: the scope check,
// with the record of a refused URL written before Redis marks the URL
// seen. Written after, a process killed in between would leave a URL that
// no process pushes again and no skip log holds.
func (r *run) admitFleet(req *frontier.Request) error {
	err := r.scope.Check(req)
	var rec *skiplog.Record
	if errors.As(err, &rec) {
		r.skip(rec)
		return errRecorded
	}
	return err
}

// fleet is a run's side of a shared crawl: the store and what is made
// from it.
type fleet struct {
	cfg      *redisConfig
	log      *slog.Logger
	store    *redisstore.Store
	pacer    *redispacer.Pacer
	front    *redisfrontier.Frontier
	robots   *redisstore.RobotsCache
	counters *fleetCounters

	stop chan struct{} // closed when the process stops taking work

	mu             sync.Mutex
	queued, leased int // the crawl's, as last read
	down           time.Time

	cancel context.CancelFunc
	bg     sync.WaitGroup
	once   sync.Once
}

// openFleet makes the store and the pacer; the frontier is opened by
// openFrontier, with the run's options.
func openFleet(cfg *config) (*fleet, error) {
	rc := cfg.redis
	log := rc.logger
	if log == nil {
		log = cfg.logger
	}
	store, err := redisstore.NewStore(rc.client, RedisPrefix(rc.crawlID),
		redisstore.WithLogger(log), redisstore.WithRetryFor(rc.retryFor))
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	pacer, err := redispacer.New(store,
		redispacer.WithFloor(cfg.floor),
		redispacer.WithConcurrency(cfg.perHost),
		redispacer.WithMaxCrawlDelay(cfg.maxDelay),
		redispacer.WithSlotTimeout(rc.lease),
		redispacer.WithLogger(log),
	)
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	f := &fleet{cfg: rc, log: log, store: store, pacer: pacer,
		robots: redisstore.NewRobotsCache(store), stop: make(chan struct{})}
	f.counters = newFleetCounters(redisstore.NewCounters(store), f)
	return f, nil
}

// openFrontier opens the crawl's frontier, gated by the fleet's pacer.
func (f *fleet) openFrontier(opts ...frontier.Option) (frontier.Frontier, error) {
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.retryFor+10*time.Second)
	defer cancel()
	fr, err := redisfrontier.NewFrontier(ctx, f.store, redisfrontier.WithLeaseTimeout(f.cfg.lease),
		redisfrontier.WithFrontierOptions(append(opts, frontier.WithGate(f.pacer))...))
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	f.front = fr
	return &fleetFrontier{Frontier: fr, fl: f}, nil
}

// start begins the background work: the counters' flusher and the
// crawl's queue sizes, read twice a second for progress. intake is the
// run's context: when it ends, the process is stopping.
func (f *fleet) start(intake context.Context) {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.bg.Add(3)
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
// (for at most the store's retry budget) and stops the pacer's renewals.
func (f *fleet) close() {
	f.stopping()
	if f.cancel != nil {
		f.cancel()
	}
	f.bg.Wait()
	f.counters.flushAll(f.cfg.retryFor)
	f.pacer.Close()
}

// FleetSummary is what a process of a shared crawl (WithRedis) reports of
// the whole crawl when it stops: the counts of every process, read from
// Redis, and what is left. Summary.Stats holds this process's own counts.
type FleetSummary struct {
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
	// Complete says nothing was queued or leased anywhere in the crawl.
	Complete bool `json:"complete"`
	// Err says why the crawl-wide counts could not be read, if they
	// could not; the other fields are then zero.
	Err string `json:"error,omitempty"`
}

// summary reads the crawl-wide counts.
func (f *fleet) summary() *FleetSummary {
	s := &FleetSummary{CrawlID: f.cfg.crawlID, Statuses: map[int]int64{}, Skipped: map[skiplog.Reason]int64{}, Robots: map[string]int64{}}
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.retryFor+5*time.Second)
	defer cancel()
	tot, err := f.counters.c.Read(ctx)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	s.Pages, s.Bytes, s.Statuses = tot.Pages, tot.Bytes, tot.Statuses
	for r, n := range tot.Skipped {
		s.Skipped[skiplog.Reason(r)] = n
	}
	for name, n := range tot.Named {
		if st, ok := strings.CutPrefix(name, robotsCounter); ok {
			s.Robots[st] = n
		}
	}
	cn, err := f.front.Counts(ctx)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	s.Queued, s.Leased, s.Reclaimed = cn.Queued, cn.Leased, cn.Reclaimed
	s.Complete = cn.Queued == 0 && cn.Leased == 0 && cn.Admitting == 0
	return s
}

// Format writes the crawl-wide summary as a few lines.
func (s *FleetSummary) Format(w io.Writer) error {
	if s.Err != "" {
		_, err := fmt.Fprintf(w, "crawl %s (all processes): counts unavailable: %s\n", s.CrawlID, s.Err)
		return err
	}
	state := "complete: nothing queued or in flight in any process"
	if !s.Complete {
		state = fmt.Sprintf("%d URLs queued and %d in flight, left to the other processes (run again with the same --crawl-id to help)", s.Queued, s.Leased)
	}
	var skipped int64
	for _, n := range s.Skipped {
		skipped += n
	}
	if _, err := fmt.Fprintf(w, "crawl %s (all processes): %d pages (%s), %d skipped, %d leases reclaimed from stopped processes; %s\n",
		s.CrawlID, s.Pages, FormatBytes(s.Bytes), skipped, s.Reclaimed, state); err != nil {
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

// Package stats owns a crawl's counts: the Collector the engine counts
// into while it runs, the Snapshot a reader copies out of it at any time,
// and the one way heed writes them for people (Snapshot.Line for a
// progress line, Snapshot.Format for the summary, FormatBytes); and
// Shared, the crawl-wide counts of a crawl several processes share, with
// its own Format; and NothingFetched, the report of a crawl that fetched
// no page although it tried (Nothing reads it from the counts and the
// skip log's reasons, Failures keeps the first failure's error).
//
// The model is Scrapy's stats collector with typed fields instead of a
// dictionary: every count has its own field, documented where it is
// declared, and counts per authority sit beside the totals. A Snapshot is
// plain data that survives JSON, so a durable job stores it and a resumed
// run continues it (Collector.Restore): the counts then cover every run
// of the job, and Elapsed adds up the runs, not the pauses between them.
//
// The contract: a Collector is safe for concurrent use; every method
// takes one short lock; Snapshot returns a deep copy the caller may keep.
// The limits: the counts of one process (a crawl shared by several
// processes adds them up elsewhere, see package fleet); Dropped keeps at
// most MaxDropReasons distinct reasons and counts the rest as "other".
// The package counts, formats and reads the counts back; it does not
// decide, fetch or log.
package stats

import (
	"sync"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// Collector collects a crawl's counts while it runs. Read it with
// Snapshot at any time; it is safe for concurrent use.
type Collector struct {
	mu   sync.Mutex
	now  func() time.Time
	s    Snapshot
	auth map[string]*Authority
	// queue reports the frontier's queued and leased counts while a crawl
	// runs (SetQueue).
	queue func() (queued, inFlight int)
	// runStart is when this run started; prior is the time earlier runs
	// of a resumed crawl took (see Restore).
	runStart time.Time
	prior    time.Duration
}

// Snapshot is a copy of a crawl's counts at one moment.
//
// For a crawl resumed from its state (package jobstate) the counts cover every
// run of the job: Started is when the first run started, Elapsed adds up
// the time of the runs (not the pauses between them), and Runs counts
// them.
type Snapshot struct {
	Started  time.Time     `json:"started"`
	Finished time.Time     `json:"finished,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Runs     int           `json:"runs,omitempty"`

	// Pages counts responses downloaded (any status); Bytes their bodies.
	Pages int64 `json:"pages"`
	Bytes int64 `json:"bytes"`
	// Statuses counts responses by HTTP status.
	Statuses map[int]int64 `json:"statuses"`
	// CacheHits counts the responses (among Pages) served from the HTTP
	// cache (crawler.WithHTTPCache) without contacting the site.
	CacheHits int64 `json:"cache_hits,omitempty"`
	// Truncated counts the pages (among Pages) whose body was cut at the
	// body limit (crawler.WithMaxBodySize).
	Truncated int64 `json:"truncated,omitempty"`
	// Waiting and InFlight are the frontier's counts at the snapshot.
	Waiting  int `json:"waiting"`
	InFlight int `json:"in_flight"`
	// Queued counts URLs admitted to the frontier; Duplicates the URLs
	// discovered again.
	Queued     int64 `json:"queued"`
	Duplicates int64 `json:"duplicates"`
	// IgnoredLinks counts links that are not http(s) (mailto:, javascript:).
	IgnoredLinks int64 `json:"ignored_links"`
	// LinksCapped counts links not followed because their page had
	// already given the most links one page may (crawler.WithMaxLinksPerPage);
	// PagesCapped counts those pages, and PagesCut the pages whose HTML
	// was parsed only up to the element limit (crawler.WithMaxPageElements).
	LinksCapped int64 `json:"links_capped,omitempty"`
	PagesCapped int64 `json:"pages_capped,omitempty"`
	PagesCut    int64 `json:"pages_cut,omitempty"`
	// Skipped counts skip-log records by reason.
	Skipped map[skiplog.Reason]int64 `json:"skipped"`
	// Deferred counts requests put back in the frontier, by cause.
	Deferred map[string]int64 `json:"deferred"`
	// Robots counts robots.txt fetches by outcome (available,
	// unavailable, unreachable).
	Robots map[string]int64 `json:"robots"`
	// Items counts items that reached the exporters; ItemsDropped the
	// items a pipeline dropped; ItemErrors the pipeline and export errors.
	Items        int64 `json:"items"`
	ItemsDropped int64 `json:"items_dropped"`
	ItemErrors   int64 `json:"item_errors"`
	// Dropped counts dropped items by the reason their pipeline gave
	// (Drop's argument). Past MaxDropReasons distinct reasons, the rest
	// are counted under "other", so a reason that names each item cannot
	// grow it without bound.
	Dropped map[string]int64 `json:"dropped,omitempty"`
	// CallbackErrors counts callbacks that panicked.
	CallbackErrors int64 `json:"callback_errors"`
	// Authorities holds the counts per authority.
	Authorities map[string]Authority `json:"authorities"`
	// Durations are the request-duration histograms by status class
	// (StatusClass): every request the crawl sent, robots.txt, sitemaps
	// and each retry included; nil before the first.
	Durations map[string]DurationHistogram `json:"durations,omitempty"`
}

// Authority holds the counts of one authority.
type Authority struct {
	Pages    int64                    `json:"pages"`
	Bytes    int64                    `json:"bytes"`
	Statuses map[int]int64            `json:"statuses"`
	Skipped  map[skiplog.Reason]int64 `json:"skipped,omitempty"`
	Robots   string                   `json:"robots,omitempty"`
	// RobotsStatus is the HTTP status of the authority's last robots.txt
	// fetch (the status that decided Robots); 0 when no response arrived.
	RobotsStatus int `json:"robots_status,omitempty"`
}

// New returns an empty Collector that reads the time from now
// (time.Now when nil).
func New(now func() time.Time) *Collector {
	if now == nil {
		now = time.Now
	}
	return &Collector{now: now, auth: make(map[string]*Authority), s: Snapshot{
		Statuses: map[int]int64{}, Skipped: map[skiplog.Reason]int64{},
		Deferred: map[string]int64{}, Robots: map[string]int64{}, Dropped: map[string]int64{},
	}}
}

func (st *Collector) authority(a string) *Authority {
	as := st.auth[a]
	if as == nil {
		as = &Authority{Statuses: map[int]int64{}}
		st.auth[a] = as
	}
	return as
}

// Start marks the start of a run (the first one's is the job's Started).
func (st *Collector) Start() {
	st.mu.Lock()
	st.runStart = st.now()
	if st.s.Started.IsZero() {
		st.s.Started = st.runStart
	}
	st.mu.Unlock()
}

// Restore continues the counts of earlier runs: saved is their last
// stored snapshot (nil for a new state), skips the summary of the skip
// log, which is exact where the snapshot may be a second old, and runs
// the number of runs including this one.
func (st *Collector) Restore(saved *Snapshot, skips skiplog.Summary, runs int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if saved != nil {
		s := *saved
		s.Finished, s.Waiting, s.InFlight, s.Authorities = time.Time{}, 0, 0, nil
		s.Statuses = cloneMap(s.Statuses)
		s.Deferred = cloneMap(s.Deferred)
		s.Robots = cloneMap(s.Robots)
		s.Dropped = cloneMap(s.Dropped)
		s.Durations = cloneDurations(s.Durations)
		st.prior = max(0, saved.Elapsed)
		if s.Started.IsZero() {
			s.Started = st.s.Started
		}
		st.s = s
		st.auth = make(map[string]*Authority, len(saved.Authorities))
		for a, as := range saved.Authorities {
			cp := as
			cp.Statuses = cloneMap(as.Statuses)
			cp.Skipped = nil
			st.auth[a] = &cp
		}
	}
	st.s.Runs = runs
	st.s.Skipped = make(map[skiplog.Reason]int64, len(skips.ByReason))
	for r, n := range skips.ByReason {
		st.s.Skipped[r] = int64(n)
	}
	for a, m := range skips.ByAuthority {
		as := st.authority(a)
		as.Skipped = make(map[skiplog.Reason]int64, len(m))
		for r, n := range m {
			as.Skipped[r] = int64(n)
		}
	}
}

// Finish marks the end of the run.
func (st *Collector) Finish() {
	st.mu.Lock()
	st.s.Finished = st.now()
	st.mu.Unlock()
}

// Fetched counts a response of auth with its status and n body bytes.
func (st *Collector) Fetched(auth string, status, n int) {
	st.mu.Lock()
	st.s.Pages++
	st.s.Bytes += int64(n)
	st.s.Statuses[status]++
	as := st.authority(auth)
	as.Pages++
	as.Bytes += int64(n)
	as.Statuses[status]++
	st.mu.Unlock()
}

// Skipped counts a skip-log record.
func (st *Collector) Skipped(rec *skiplog.Record) {
	st.mu.Lock()
	st.s.Skipped[rec.Reason]++
	as := st.authority(rec.Authority)
	if as.Skipped == nil {
		as.Skipped = map[skiplog.Reason]int64{}
	}
	as.Skipped[rec.Reason]++
	st.mu.Unlock()
}

// RobotsFetched counts a robots.txt fetch and keeps its authority's
// state.
func (st *Collector) RobotsFetched(e *middleware.RobotsEntry) {
	st.mu.Lock()
	st.s.Robots[e.State.String()]++
	as := st.authority(e.Authority)
	as.Robots, as.RobotsStatus = e.State.String(), e.Status
	st.mu.Unlock()
}

// RobotsRestored accounts for a robots.txt entry restored from a state:
// its authority's state, and its fetch if the stored statistics missed it
// (they may be a second older than the robots.txt records).
func (st *Collector) RobotsRestored(e *middleware.RobotsEntry) {
	st.mu.Lock()
	as := st.authority(e.Authority)
	if as.Robots == "" {
		st.s.Robots[e.State.String()]++
	}
	as.Robots, as.RobotsStatus = e.State.String(), e.Status
	st.mu.Unlock()
}

func (st *Collector) add(f func(s *Snapshot)) {
	st.mu.Lock()
	f(&st.s)
	st.mu.Unlock()
}

// Queued counts a URL admitted to the frontier.
func (st *Collector) Queued() { st.add(func(s *Snapshot) { s.Queued++ }) }

// CacheHit counts a response served from the HTTP cache.
func (st *Collector) CacheHit() { st.add(func(s *Snapshot) { s.CacheHits++ }) }

// Duplicate counts a URL discovered again.
func (st *Collector) Duplicate() { st.add(func(s *Snapshot) { s.Duplicates++ }) }

// IgnoredLink counts a link that is not http(s).
func (st *Collector) IgnoredLink() { st.add(func(s *Snapshot) { s.IgnoredLinks++ }) }

// BodyCut counts a page whose body was cut at the body limit.
func (st *Collector) BodyCut() { st.add(func(s *Snapshot) { s.Truncated++ }) }

// PageCut counts a page parsed only up to the element limit.
func (st *Collector) PageCut() { st.add(func(s *Snapshot) { s.PagesCut++ }) }

// LinksCapped counts n links of one page not followed.
func (st *Collector) LinksCapped(n int64) {
	st.add(func(s *Snapshot) { s.LinksCapped += n; s.PagesCapped++ })
}

// CallbackError counts a callback that panicked.
func (st *Collector) CallbackError() { st.add(func(s *Snapshot) { s.CallbackErrors++ }) }

// Item counts an item that reached the exporters.
func (st *Collector) Item() { st.add(func(s *Snapshot) { s.Items++ }) }

// ItemError counts a pipeline or export error.
func (st *Collector) ItemError() { st.add(func(s *Snapshot) { s.ItemErrors++ }) }

// MaxDropReasons bounds Snapshot.Dropped.
const MaxDropReasons = 64

// ItemDropped counts an item a pipeline dropped, by its reason.
func (st *Collector) ItemDropped(reason string) {
	st.add(func(s *Snapshot) {
		s.ItemsDropped++
		if _, ok := s.Dropped[reason]; !ok && len(s.Dropped) >= MaxDropReasons {
			reason = "other"
		}
		s.Dropped[reason]++
	})
}

// Deferred counts a request put back in the frontier, by cause.
func (st *Collector) Deferred(why string) {
	st.add(func(s *Snapshot) { s.Deferred[why]++ })
}

// SetQueue makes Snapshot read Waiting and InFlight from queue, the
// frontier's queued and leased counts.
func (st *Collector) SetQueue(queue func() (queued, inFlight int)) {
	st.mu.Lock()
	st.queue = queue
	st.mu.Unlock()
}

// Snapshot returns a copy of the counts now.
func (st *Collector) Snapshot() Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.s
	c.Statuses = cloneMap(st.s.Statuses)
	c.Skipped = cloneMap(st.s.Skipped)
	c.Deferred = cloneMap(st.s.Deferred)
	c.Robots = cloneMap(st.s.Robots)
	c.Dropped = cloneMap(st.s.Dropped)
	c.Durations = cloneDurations(st.s.Durations)
	c.Authorities = make(map[string]Authority, len(st.auth))
	for a, as := range st.auth {
		cp := *as
		cp.Statuses = cloneMap(as.Statuses)
		cp.Skipped = cloneMap(as.Skipped)
		c.Authorities[a] = cp
	}
	if st.queue != nil {
		c.Waiting, c.InFlight = st.queue()
	}
	end := c.Finished
	if end.IsZero() {
		end = st.now()
	}
	c.Elapsed = st.prior
	if !st.runStart.IsZero() {
		c.Elapsed += end.Sub(st.runStart)
	}
	return c
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

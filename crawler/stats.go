package crawler

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// Stats collects a crawl's counts while it runs. Read it with Snapshot at
// any time; it is safe for concurrent use.
type Stats struct {
	mu   sync.Mutex
	now  func() time.Time
	s    Snapshot
	auth map[string]*AuthorityStats
	// queue reports the frontier's queued and leased counts while a crawl
	// runs.
	queue func() (queued, inFlight int)
	// runStart is when this run started; prior is the time earlier runs
	// of a resumed crawl took (see restore).
	runStart time.Time
	prior    time.Duration
}

// Snapshot is a copy of a crawl's counts at one moment.
//
// For a crawl resumed from its state (WithState) the counts cover every
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
	// cache (WithHTTPCache) without contacting the site.
	CacheHits int64 `json:"cache_hits,omitempty"`
	// Truncated counts the pages (among Pages) whose body was cut at the
	// body limit (WithMaxBodySize).
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
	// already given the most links one page may (WithMaxLinksPerPage);
	// PagesCapped counts those pages, and PagesCut the pages whose HTML
	// was parsed only up to the element limit (WithMaxPageElements).
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
	// (Drop's argument). Past maxDropReasons distinct reasons, the rest
	// are counted under "other", so a reason that names each item cannot
	// grow it without bound.
	Dropped map[string]int64 `json:"dropped,omitempty"`
	// CallbackErrors counts callbacks that panicked.
	CallbackErrors int64 `json:"callback_errors"`
	// Authorities holds the counts per authority.
	Authorities map[string]AuthorityStats `json:"authorities"`
}

// AuthorityStats are the counts of one authority.
type AuthorityStats struct {
	Pages    int64                    `json:"pages"`
	Bytes    int64                    `json:"bytes"`
	Statuses map[int]int64            `json:"statuses"`
	Skipped  map[skiplog.Reason]int64 `json:"skipped,omitempty"`
	Robots   string                   `json:"robots,omitempty"`
	// RobotsStatus is the HTTP status of the authority's last robots.txt
	// fetch (the status that decided Robots); 0 when no response arrived.
	RobotsStatus int `json:"robots_status,omitempty"`
}

func newStats(now func() time.Time) *Stats {
	return &Stats{now: now, auth: make(map[string]*AuthorityStats), s: Snapshot{
		Statuses: map[int]int64{}, Skipped: map[skiplog.Reason]int64{},
		Deferred: map[string]int64{}, Robots: map[string]int64{}, Dropped: map[string]int64{},
	}}
}

func (st *Stats) authority(a string) *AuthorityStats {
	as := st.auth[a]
	if as == nil {
		as = &AuthorityStats{Statuses: map[int]int64{}}
		st.auth[a] = as
	}
	return as
}

func (st *Stats) start() {
	st.mu.Lock()
	st.runStart = st.now()
	if st.s.Started.IsZero() {
		st.s.Started = st.runStart
	}
	st.mu.Unlock()
}

// restore continues the counts of earlier runs: saved is their last
// stored snapshot (nil for a new state), skips the summary of the skip
// log, which is exact where the snapshot may be a second old, and runs
// the number of runs including this one.
func (st *Stats) restore(saved *Snapshot, skips skiplog.Summary, runs int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if saved != nil {
		s := *saved
		s.Finished, s.Waiting, s.InFlight, s.Authorities = time.Time{}, 0, 0, nil
		s.Statuses = cloneMap(s.Statuses)
		s.Deferred = cloneMap(s.Deferred)
		s.Robots = cloneMap(s.Robots)
		s.Dropped = cloneMap(s.Dropped)
		st.prior = max(0, saved.Elapsed)
		if s.Started.IsZero() {
			s.Started = st.s.Started
		}
		st.s = s
		st.auth = make(map[string]*AuthorityStats, len(saved.Authorities))
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

func (st *Stats) finish() {
	st.mu.Lock()
	st.s.Finished = st.now()
	st.mu.Unlock()
}

func (st *Stats) fetched(auth string, status, n int) {
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

func (st *Stats) skipped(rec *skiplog.Record) {
	st.mu.Lock()
	st.s.Skipped[rec.Reason]++
	as := st.authority(rec.Authority)
	if as.Skipped == nil {
		as.Skipped = map[skiplog.Reason]int64{}
	}
	as.Skipped[rec.Reason]++
	st.mu.Unlock()
}

func (st *Stats) robotsFetched(e *middleware.RobotsEntry) {
	st.mu.Lock()
	st.s.Robots[e.State.String()]++
	as := st.authority(e.Authority)
	as.Robots, as.RobotsStatus = e.State.String(), e.Status
	st.mu.Unlock()
}

// robotsRestored accounts for a robots.txt entry restored from a state:
// its authority's state, and its fetch if the stored statistics missed it
// (they may be a second older than the robots.txt records).
func (st *Stats) robotsRestored(e *middleware.RobotsEntry) {
	st.mu.Lock()
	as := st.authority(e.Authority)
	if as.Robots == "" {
		st.s.Robots[e.State.String()]++
	}
	as.Robots, as.RobotsStatus = e.State.String(), e.Status
	st.mu.Unlock()
}

func (st *Stats) add(f func(s *Snapshot)) {
	st.mu.Lock()
	f(&st.s)
	st.mu.Unlock()
}

func (st *Stats) queued()      { st.add(func(s *Snapshot) { s.Queued++ }) }
func (st *Stats) cacheHit()    { st.add(func(s *Snapshot) { s.CacheHits++ }) }
func (st *Stats) duplicate()   { st.add(func(s *Snapshot) { s.Duplicates++ }) }
func (st *Stats) ignoredLink() { st.add(func(s *Snapshot) { s.IgnoredLinks++ }) }
func (st *Stats) pageCut()     { st.add(func(s *Snapshot) { s.PagesCut++ }) }
func (st *Stats) bodyCut()     { st.add(func(s *Snapshot) { s.Truncated++ }) }

// linksCapped counts n links of one page not followed.
func (st *Stats) linksCapped(n int64) {
	st.add(func(s *Snapshot) { s.LinksCapped += n; s.PagesCapped++ })
}
func (st *Stats) callbackError() { st.add(func(s *Snapshot) { s.CallbackErrors++ }) }
func (st *Stats) item()          { st.add(func(s *Snapshot) { s.Items++ }) }
func (st *Stats) itemError()     { st.add(func(s *Snapshot) { s.ItemErrors++ }) }

// maxDropReasons bounds Snapshot.Dropped.
const maxDropReasons = 64

func (st *Stats) itemDropped(reason string) {
	st.add(func(s *Snapshot) {
		s.ItemsDropped++
		if _, ok := s.Dropped[reason]; !ok && len(s.Dropped) >= maxDropReasons {
			reason = "other"
		}
		s.Dropped[reason]++
	})
}

func (st *Stats) deferred(why string) {
	st.add(func(s *Snapshot) { s.Deferred[why]++ })
}

// Snapshot returns a copy of the counts now.
func (st *Stats) Snapshot() Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.s
	c.Statuses = cloneMap(st.s.Statuses)
	c.Skipped = cloneMap(st.s.Skipped)
	c.Deferred = cloneMap(st.s.Deferred)
	c.Robots = cloneMap(st.s.Robots)
	c.Dropped = cloneMap(st.s.Dropped)
	c.Authorities = make(map[string]AuthorityStats, len(st.auth))
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

// Rate returns pages per second over the elapsed time.
func (s Snapshot) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Pages) / s.Elapsed.Seconds()
}

// ItemRate returns items exported per second over the elapsed time.
func (s Snapshot) ItemRate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Items) / s.Elapsed.Seconds()
}

// Line returns the counts on one line, for a progress display or a
// periodic log line.
func (s Snapshot) Line() string {
	return fmt.Sprintf("pages %d (%.1f/s)  waiting %d  in flight %d  duplicates %d  skipped %d  items %d (%d dropped)  %s",
		s.Pages, s.Rate(), s.Waiting, s.InFlight, s.Duplicates, s.SkippedTotal(), s.Items, s.ItemsDropped, s.Elapsed.Round(time.Second))
}

// SkippedTotal returns the number of skip-log records.
func (s Snapshot) SkippedTotal() int64 {
	var n int64
	for _, v := range s.Skipped {
		n += v
	}
	return n
}

// Format writes a human-readable summary.
func (s Snapshot) Format(w io.Writer) error {
	_, err := fmt.Fprintf(w, "pages: %d (%s, %.1f pages/s, %s)\n", s.Pages, FormatBytes(s.Bytes), s.Rate(), s.Elapsed.Round(time.Millisecond))
	if err != nil {
		return err
	}
	if s.Truncated > 0 {
		fmt.Fprintf(w, "cut at the body limit: %d pages (only their first bytes were read)\n", s.Truncated)
	}
	if s.CacheHits > 0 {
		fmt.Fprintf(w, "from the HTTP cache: %d of the pages, without contacting their sites\n", s.CacheHits)
	}
	if s.Runs > 0 {
		fmt.Fprintf(w, "runs: %d (the counts are the job's, since %s)\n", s.Runs, s.Started.Format(time.RFC3339))
	}
	codes := make([]int, 0, len(s.Statuses))
	for c := range s.Statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	fmt.Fprint(w, "statuses:")
	for _, c := range codes {
		fmt.Fprintf(w, " %d=%d", c, s.Statuses[c])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "discovered: %d queued, %d duplicates, %d non-http links ignored\n", s.Queued, s.Duplicates, s.IgnoredLinks)
	if s.PagesCut > 0 || s.LinksCapped > 0 {
		fmt.Fprintf(w, "page limits: %d pages parsed in part (element limit), %d links not followed on %d pages (link limit)\n",
			s.PagesCut, s.LinksCapped, s.PagesCapped)
	}
	hosts := map[string]int{}
	for _, as := range s.Authorities {
		if as.Robots != "" {
			hosts[as.Robots]++
		}
	}
	var fetches int64
	for _, n := range s.Robots {
		fetches += n
	}
	fmt.Fprintf(w, "robots.txt: %d hosts available, %d unavailable (4xx: no restrictions), %d unreachable (complete disallow); %d fetches\n",
		hosts["available"], hosts["unavailable"], hosts["unreachable"], fetches)
	fmt.Fprintf(w, "items: %d exported, %d dropped, %d errors", s.Items, s.ItemsDropped, s.ItemErrors)
	if len(s.Dropped) > 0 {
		reasons := make([]string, 0, len(s.Dropped))
		for r := range s.Dropped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprint(w, " (dropped:")
		for i, r := range reasons {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s=%d", sep, r, s.Dropped[r])
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	if s.CallbackErrors > 0 {
		fmt.Fprintf(w, "callback errors: %d\n", s.CallbackErrors)
	}
	return nil
}

// FormatBytes writes a byte count the way heed's summaries do: "512 B",
// "8.0 KiB", "1.5 MiB", "2.0 GiB".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// hooks are the crawl's signals, as in Scrapy: start, finish, item
// scraped, item dropped, request skipped. Hooks run on the goroutine that
// raised the signal (a worker for items and skips), so a slow hook slows
// that worker; they may be called concurrently.
type hooks struct {
	mu        sync.RWMutex
	onStart   []func(*Crawler)
	onFinish  []func(*Crawler, Summary)
	onItem    []func(any)
	onDropped []func(any, error)
	onSkip    []func(*skiplog.Record)
}

// OnStart registers fn to run when the crawl starts, before the seeds are
// queued.
func (c *Crawler) OnStart(fn func(*Crawler)) {
	c.hooks.mu.Lock()
	c.hooks.onStart = append(c.hooks.onStart, fn)
	c.hooks.mu.Unlock()
}

// OnFinish registers fn to run when the crawl has finished, with its
// summary, after the exporters and the skip log are closed.
func (c *Crawler) OnFinish(fn func(*Crawler, Summary)) {
	c.hooks.mu.Lock()
	c.hooks.onFinish = append(c.hooks.onFinish, fn)
	c.hooks.mu.Unlock()
}

// OnItem registers fn to run for every item that reached the exporters
// (Scrapy's item_scraped), with the item as the pipelines left it.
func (c *Crawler) OnItem(fn func(item any)) {
	c.hooks.mu.Lock()
	c.hooks.onItem = append(c.hooks.onItem, fn)
	c.hooks.mu.Unlock()
}

// OnItemDropped registers fn to run for every item that did not reach the
// exporters: err is a *DropError when a pipeline dropped it (Scrapy's
// item_dropped), any other error when a stage or an exporter failed
// (item_error).
func (c *Crawler) OnItemDropped(fn func(item any, err error)) {
	c.hooks.mu.Lock()
	c.hooks.onDropped = append(c.hooks.onDropped, fn)
	c.hooks.mu.Unlock()
}

// OnSkip registers fn to run for every skip-log record, as it is written.
func (c *Crawler) OnSkip(fn func(*skiplog.Record)) {
	c.hooks.mu.Lock()
	c.hooks.onSkip = append(c.hooks.onSkip, fn)
	c.hooks.mu.Unlock()
}

func (h *hooks) started(c *Crawler) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onStart {
		f(c)
	}
}

func (h *hooks) finished(c *Crawler, s Summary) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onFinish {
		f(c, s)
	}
}

func (h *hooks) item(it any) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onItem {
		f(it)
	}
}

func (h *hooks) dropped(it any, err error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onDropped {
		f(it, err)
	}
}

func (h *hooks) skipped(rec *skiplog.Record) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onSkip {
		f(rec)
	}
}

// Package metrics exposes a heed crawl's statistics as Prometheus metrics.
//
// It owns the mapping from stats.Snapshot to metric families and a small
// HTTP server for /metrics; `heed crawl --metrics ADDR` uses both. The
// collector reads a snapshot of the crawl's stats.Collector at every scrape, so it adds
// no work to the crawl between scrapes and its counters are the crawl's
// own counts, never a second tally that could disagree with the summary.
//
// What is served: the crawl's counters and gauges (heed_pages_total,
// heed_skipped_total by reason, heed_frontier_waiting, ...), the
// request-duration histogram heed_request_duration_seconds by status
// class (2xx to 5xx, error), the authorities by robots.txt state, and the
// per-authority families for a bounded set of authorities (see
// WithAuthorityLimit). Handler and Listen add Go's runtime and the
// process's metrics (go_*, process_*) and heed_build_info, whose labels
// name heed's version, VCS revision and Go version. The dashboard in
// dashboard.json queries only these names; a test keeps it so.
//
// # Limits
//
// Per-authority series are bounded: the first authorities the scrapes
// find (largest first among those found together), up to the limit, keep
// their own series for the collector's life, and the counts of every
// other authority are summed under authority="other". Every series is
// therefore a counter that never goes down, whatever the crawl's size.
//
// It deliberately keeps Prometheus out of the crawler package: a program
// that does not import metrics does not link client_golang.
package metrics

import (
	"sort"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// Namespace prefixes every metric name.
const Namespace = "heed"

// DefaultAuthorityLimit is how many authorities get their own series
// unless WithAuthorityLimit says otherwise.
const DefaultAuthorityLimit = 20

// Other is the authority label under which the authorities past the
// limit are counted together.
const Other = "other"

// Collector is a prometheus.Collector reading a crawl's Stats.
type Collector struct {
	stats *stats.Collector
	limit int
	d     descs

	mu       sync.Mutex
	admitted map[string]bool // authorities with their own series
}

type descs struct {
	pages, bytes, responses, skipped, deferred, robots      *prometheus.Desc
	items, dropped, itemErrors, callbackErrors              *prometheus.Desc
	queued, duplicates, ignored, waiting, inFlight, elapsed *prometheus.Desc
	durations, robotsStates                                 *prometheus.Desc
	authPages, authBytes, authSkipped                       *prometheus.Desc
}

// Option configures a Collector.
type Option func(*Collector)

// WithAuthorityLimit gives at most n authorities their own per-authority
// series (heed_authority_*); the others are summed under
// authority="other" (see the package doc). n <= 0 leaves the
// per-authority families out. The default is DefaultAuthorityLimit.
func WithAuthorityLimit(n int) Option { return func(c *Collector) { c.limit = max(n, 0) } }

// WithoutPerAuthority leaves out the per-authority families:
// WithAuthorityLimit(0).
func WithoutPerAuthority() Option { return WithAuthorityLimit(0) }

// NewCollector returns a collector of stats; constLabels (may be nil) are
// added to every metric, for example {"agent": "ExampleBot"}.
func NewCollector(st *stats.Collector, constLabels prometheus.Labels, opts ...Option) *Collector {
	c := &Collector{stats: st, limit: DefaultAuthorityLimit, admitted: map[string]bool{}}
	for _, o := range opts {
		o(c)
	}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, constLabels)
	}
	c.d = descs{
		pages:          d("pages_total", "Responses downloaded, any status."),
		bytes:          d("response_bytes_total", "Bytes of response bodies downloaded, after decompression."),
		responses:      d("responses_total", "Responses downloaded by HTTP status.", "status"),
		skipped:        d("skipped_total", "URLs written to the skip log, by reason.", "reason"),
		deferred:       d("deferred_total", "Requests put back in the frontier, by cause.", "cause"),
		robots:         d("robots_fetches_total", "robots.txt fetches by outcome (available, unavailable, unreachable).", "outcome"),
		items:          d("items_total", "Items that reached the exporters."),
		dropped:        d("items_dropped_total", "Items a pipeline dropped, by reason.", "reason"),
		itemErrors:     d("item_errors_total", "Items lost to a failing pipeline stage or exporter."),
		callbackErrors: d("callback_errors_total", "Spider callbacks that panicked."),
		queued:         d("urls_queued_total", "URLs admitted to the frontier."),
		duplicates:     d("urls_duplicate_total", "URLs discovered again and not queued."),
		ignored:        d("links_ignored_total", "Links that are not http(s), ignored."),
		waiting:        d("frontier_waiting", "Requests waiting in the frontier."),
		inFlight:       d("requests_in_flight", "Requests leased to workers."),
		elapsed:        d("elapsed_seconds", "Time since the crawl started."),
		durations: d("request_duration_seconds", "Time from sending a request to the end of its body (a streamed sitemap: to its header), by status class (1xx-5xx, error: no response); robots.txt, sitemaps and retries included.",
			"class"),
		robotsStates: d("authorities", "Authorities seen, by the state of their robots.txt (available, unavailable, unreachable; unknown before it is read).", "robots"),
		authPages:    d("authority_pages_total", "Responses downloaded per authority (a bounded set; the rest as authority=\"other\").", "authority"),
		authBytes:    d("authority_response_bytes_total", "Response body bytes per authority (a bounded set; the rest as authority=\"other\").", "authority"),
		authSkipped:  d("authority_skipped_total", "Skip-log records per authority and reason (a bounded set; the rest as authority=\"other\").", "authority", "reason"),
	}
	return c
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.d.pages, c.d.bytes, c.d.responses, c.d.skipped, c.d.deferred, c.d.robots,
		c.d.items, c.d.dropped, c.d.itemErrors, c.d.callbackErrors, c.d.queued, c.d.duplicates, c.d.ignored,
		c.d.waiting, c.d.inFlight, c.d.elapsed, c.d.durations, c.d.robotsStates} {
		ch <- d
	}
	if c.limit > 0 {
		ch <- c.d.authPages
		ch <- c.d.authBytes
		ch <- c.d.authSkipped
	}
}

// Collect reads one snapshot of the crawl's statistics and sends it as
// metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats.Snapshot()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(c.d.pages, s.Pages)
	counter(c.d.bytes, s.Bytes)
	for code, n := range s.Statuses {
		counter(c.d.responses, n, strconv.Itoa(code))
	}
	for r, n := range s.Skipped {
		counter(c.d.skipped, n, string(r))
	}
	for cause, n := range s.Deferred {
		counter(c.d.deferred, n, cause)
	}
	for outcome, n := range s.Robots {
		counter(c.d.robots, n, outcome)
	}
	counter(c.d.items, s.Items)
	for r, n := range s.Dropped {
		counter(c.d.dropped, n, r)
	}
	counter(c.d.itemErrors, s.ItemErrors)
	counter(c.d.callbackErrors, s.CallbackErrors)
	counter(c.d.queued, s.Queued)
	counter(c.d.duplicates, s.Duplicates)
	counter(c.d.ignored, s.IgnoredLinks)
	gauge(c.d.waiting, float64(s.Waiting))
	gauge(c.d.inFlight, float64(s.InFlight))
	gauge(c.d.elapsed, s.Elapsed.Seconds())
	for class, h := range s.Durations {
		ch <- prometheus.MustNewConstHistogram(c.d.durations, uint64(h.Count), h.Sum, h.Cumulative(), class)
	}
	states := map[string]int{}
	for _, as := range s.Authorities {
		st := as.Robots
		if st == "" {
			st = "unknown"
		}
		states[st]++
	}
	for st, n := range states {
		gauge(c.d.robotsStates, float64(n), st)
	}
	if c.limit > 0 {
		c.collectAuthorities(s.Authorities, counter)
	}
}

// collectAuthorities sends the per-authority families: the admitted
// authorities one by one, the rest summed as Other.
func (c *Collector) collectAuthorities(all map[string]stats.Authority, counter func(*prometheus.Desc, int64, ...string)) {
	c.mu.Lock()
	if len(c.admitted) < c.limit {
		var fresh []string
		for a := range all {
			if !c.admitted[a] {
				fresh = append(fresh, a)
			}
		}
		// Largest first, then by name: a stable choice among the
		// authorities this scrape finds. Once the set is full it never
		// changes, so no count ever moves from one series to another.
		sort.Slice(fresh, func(i, j int) bool {
			pi, pj := all[fresh[i]].Pages, all[fresh[j]].Pages
			if pi != pj {
				return pi > pj
			}
			return fresh[i] < fresh[j]
		})
		for _, a := range fresh {
			if len(c.admitted) >= c.limit {
				break
			}
			c.admitted[a] = true
		}
	}
	admitted := make(map[string]bool, len(c.admitted))
	for a := range c.admitted {
		admitted[a] = true
	}
	c.mu.Unlock()

	var other stats.Authority
	others := 0
	for a, as := range all {
		if !admitted[a] {
			others++
			other.Pages += as.Pages
			other.Bytes += as.Bytes
			for r, n := range as.Skipped {
				if other.Skipped == nil {
					other.Skipped = map[skiplog.Reason]int64{}
				}
				other.Skipped[r] += n
			}
			continue
		}
		c.sendAuthority(a, as, counter)
	}
	if others > 0 {
		c.sendAuthority(Other, other, counter)
	}
}

func (c *Collector) sendAuthority(a string, as stats.Authority, counter func(*prometheus.Desc, int64, ...string)) {
	counter(c.d.authPages, as.Pages, a)
	counter(c.d.authBytes, as.Bytes, a)
	for r, n := range as.Skipped {
		counter(c.d.authSkipped, n, a, string(r))
	}
}

// Package metrics exposes a heed crawl's statistics as Prometheus metrics.
//
// It owns the mapping from stats.Snapshot to metric families and a small
// HTTP server for /metrics; `heed crawl --metrics ADDR` uses both. The
// collector reads a snapshot of the crawl's stats.Collector at every scrape, so it adds
// no work to the crawl between scrapes and its counters are the crawl's
// own counts, never a second tally that could disagree with the summary.
//
// It deliberately keeps Prometheus out of the crawler package: a program
// that does not import metrics does not link client_golang.
//
//	c, _ := crawler.New("ExampleBot")
//	srv, err := metrics.Listen("127.0.0.1:9090", c.Stats())
//	defer srv.Close()
//	c.Run(ctx, seeds...)
package metrics

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/heedcrawl/heed/stats"
)

// Namespace prefixes every metric name.
const Namespace = "heed"

// Collector is a prometheus.Collector reading a crawl's Stats.
type Collector struct {
	stats        *stats.Collector
	perAuthority bool
	d            descs
}

type descs struct {
	pages, bytes, responses, skipped, deferred, robots      *prometheus.Desc
	items, dropped, itemErrors, callbackErrors              *prometheus.Desc
	queued, duplicates, ignored, waiting, inFlight, elapsed *prometheus.Desc
	authPages, authBytes, authSkipped                       *prometheus.Desc
}

// Option configures a Collector.
type Option func(*Collector)

// WithoutPerAuthority leaves out the per-authority families, whose
// cardinality is the number of hosts the crawl touches.
func WithoutPerAuthority() Option { return func(c *Collector) { c.perAuthority = false } }

// NewCollector returns a collector of stats; constLabels (may be nil) are
// added to every metric, for example {"agent": "ExampleBot"}.
func NewCollector(stats *stats.Collector, constLabels prometheus.Labels, opts ...Option) *Collector {
	c := &Collector{stats: stats, perAuthority: true}
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
		authPages:      d("authority_pages_total", "Responses downloaded per authority.", "authority"),
		authBytes:      d("authority_response_bytes_total", "Response body bytes per authority.", "authority"),
		authSkipped:    d("authority_skipped_total", "Skip-log records per authority and reason.", "authority", "reason"),
	}
	return c
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.d.pages, c.d.bytes, c.d.responses, c.d.skipped, c.d.deferred, c.d.robots,
		c.d.items, c.d.dropped, c.d.itemErrors, c.d.callbackErrors, c.d.queued, c.d.duplicates, c.d.ignored,
		c.d.waiting, c.d.inFlight, c.d.elapsed} {
		ch <- d
	}
	if c.perAuthority {
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
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
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
	if !c.perAuthority {
		return
	}
	for a, as := range s.Authorities {
		counter(c.d.authPages, as.Pages, a)
		counter(c.d.authBytes, as.Bytes, a)
		for r, n := range as.Skipped {
			counter(c.d.authSkipped, n, a, string(r))
		}
	}
}

// Handler returns an http.Handler serving the collector's metrics (and
// no others) in the Prometheus exposition formats.
func Handler(c *Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// Server serves /metrics for one crawl.
type Server struct {
	srv *http.Server
	ln  net.Listener
	err chan error
}

// Listen starts serving /metrics for stats on addr ("127.0.0.1:9090",
// ":0" for any free port); options configure the collector, and the
// crawler's product token, when given in labels, labels every metric.
func Listen(addr string, stats *stats.Collector, labels prometheus.Labels, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(NewCollector(stats, labels, opts...)))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, err: make(chan error, 1)}
	go func() { s.err <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error {
	err := s.srv.Close()
	if serr := <-s.err; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

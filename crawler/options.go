package crawler

import (
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/httpcache"
	"github.com/heedcrawl/heed/pagepolicy"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/warnings"
)

// config is everything an Option can set. Zero values mean heed's polite
// defaults, applied in New.
type config struct {
	userAgent   string
	workers     int
	perHost     int
	floor       time.Duration
	floorSet    bool
	maxDelay    time.Duration
	timeout     time.Duration
	maxBody     int
	maxDepth    int
	maxPages    int
	maxPerHost  int
	domains     []string
	include     []*regexp.Regexp
	exclude     []*regexp.Regexp
	maxRedirect int
	retries     int
	retrySet    bool
	retryBase   time.Duration

	robotsMaxAge  time.Duration
	robotsGiveUp  time.Duration
	robotsRetry   time.Duration
	robotsMaxByte int
	// robotsFetchers bounds the robots.txt fetches in flight at once.
	robotsFetchers int
	// hostGiveUp is how many requests in a row without an answer give an
	// authority up.
	hostGiveUp int
	// maxElements and maxLinks bound what one page costs (parse_limits.go).
	maxElements int
	maxLinks    int

	sitemaps discovery.Config // see sitemap_options.go

	frontier  frontier.Frontier
	order     frontier.Order
	backends  []backend.Backend // see backend.go
	transport http.RoundTripper
	headers   http.Header // see headers.go
	// The developer's loop (cache.go): the HTTP cache, AutoThrottle and
	// cookie jar control.
	cache        *httpcache.Cache
	autoThrottle *politeness.AutoThrottle
	noCookies    bool
	cookies      []download.Cookies
	skipOut      io.Writer
	logger       *slog.Logger
	now          func() time.Time
	startLog     int // see live.go

	// pages is the policy for page directives and usage preferences
	// (pagesignals.go).
	pages pagepolicy.Policy
}

// Option sets an optional crawler setting.
type Option func(*config)

// WithUserAgent sets the User-Agent header. It must contain the crawler's
// product token (New refuses to start otherwise), so that sites can write
// robots.txt rules that match what they see in their logs. The default is
// "Mozilla/5.0 (compatible; TOKEN/1.0; +https://github.com/heedcrawl/heed)".
func WithUserAgent(ua string) Option { return func(c *config) { c.userAgent = ua } }

// WithWorkers sets the number of concurrent workers (default 16). Workers
// never wait on a slow host: a request that may not start yet goes back to
// the frontier.
func WithWorkers(n int) Option { return func(c *config) { c.workers = n } }

// WithConcurrencyPerHost sets how many requests may be in flight to one
// authority at once (default 1). It applies to authorities heed does not
// space (a floor of 0 and no Crawl-delay): an authority with an interval
// always has one request in flight, because only then are arrivals at the
// server guaranteed to be an interval apart.
func WithConcurrencyPerHost(n int) Option { return func(c *config) { c.perHost = n } }

// WithDelay sets the floor delay between requests to one authority
// (default 1 s). A robots.txt Crawl-delay above the floor wins.
func WithDelay(d time.Duration) Option {
	return func(c *config) { c.floor, c.floorSet = d, true }
}

// WithMaxCrawlDelay caps the Crawl-delay heed honours (default 30 s); an
// authority asking for more is excluded and its URLs skip-logged with
// reason crawl-delay-too-long.
func WithMaxCrawlDelay(d time.Duration) Option { return func(c *config) { c.maxDelay = d } }

// WithTimeout sets the timeout of one request, body included (default 30 s).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithMaxBodySize caps a response body in bytes after decompression
// (default 10 MiB); a longer body is cut and the response marked truncated.
func WithMaxBodySize(n int) Option { return func(c *config) { c.maxBody = n } }

// WithMaxDepth limits how many links deep from a seed the crawl goes; 0
// (the default) means no limit.
func WithMaxDepth(n int) Option { return func(c *config) { c.maxDepth = n } }

// WithMaxPages caps the pages downloaded in total; 0 means no cap.
func WithMaxPages(n int) Option { return func(c *config) { c.maxPages = n } }

// WithMaxPagesPerHost caps the pages downloaded per authority.
func WithMaxPagesPerHost(n int) Option { return func(c *config) { c.maxPerHost = n } }

// WithAllowedDomains keeps the crawl on these domains and their
// subdomains. Without it, the crawl stays on the hosts of its seeds.
func WithAllowedDomains(domains ...string) Option {
	return func(c *config) { c.domains = append(c.domains, domains...) }
}

// WithInclude admits only URLs matching at least one of the patterns.
func WithInclude(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.include = append(c.include, patterns...) }
}

// WithExclude refuses URLs matching any of the patterns.
func WithExclude(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.exclude = append(c.exclude, patterns...) }
}

// WithMaxRedirects limits redirect chains of pages (default 10).
func WithMaxRedirects(n int) Option { return func(c *config) { c.maxRedirect = n } }

// WithRetries sets how many times a failed request is tried again
// (default 2) and the first wait (default 2 s, doubling).
func WithRetries(n int, base time.Duration) Option {
	return func(c *config) { c.retries, c.retryBase, c.retrySet = n, base, true }
}

// WithRobotsMaxAge sets how long a fetched robots.txt is used before it is
// fetched again (default and maximum 24 hours).
func WithRobotsMaxAge(d time.Duration) Option { return func(c *config) { c.robotsMaxAge = d } }

// WithRobotsGiveUp sets how long heed keeps retrying an unreachable
// robots.txt (5xx, timeout ...) before it records that authority's URLs as
// robots-unreachable (default 10 minutes), and the first retry wait
// (default 1 s, doubling).
func WithRobotsGiveUp(giveUp, firstRetry time.Duration) Option {
	return func(c *config) { c.robotsGiveUp, c.robotsRetry = giveUp, firstRetry }
}

// WithRobotsFetchers sets how many robots.txt fetches (and retries of
// unreachable ones) run at once, in a pool of their own beside the
// workers (default middleware.DefaultRobotsFetchers, 32). A request whose
// authority's robots.txt is not known yet waits in the frontier, not in a
// worker, so hosts that never answer never hold up the hosts with ready
// work; the pool only bounds how many of them are being waited for.
func WithRobotsFetchers(n int) Option { return func(c *config) { c.robotsFetchers = n } }

// WithHostGiveUp sets how many requests in a row may end without any
// answer from an authority (timeouts, connection errors) before heed
// gives up its remaining URLs as a group: one skip-log record each,
// reason host-unreachable, with the failures as evidence (default
// politeness.DefaultGiveUp, 5). A negative n never gives up.
func WithHostGiveUp(n int) Option { return func(c *config) { c.hostGiveUp = n } }

// WithRobotsMaxBytes raises the robots.txt parse limit above 500 KiB.
func WithRobotsMaxBytes(n int) Option { return func(c *config) { c.robotsMaxByte = n } }

// WithFrontier gives the in-memory backend another frontier (a
// frontier.Frontier of the caller's). A backend with a frontier of its own
// (WithBackend: package jobstate, package fleet) cannot take one.
func WithFrontier(f frontier.Frontier) Option { return func(c *config) { c.frontier = f } }

// WithDepthFirst makes the default frontier hand out deeper pages first.
func WithDepthFirst() Option { return func(c *config) { c.order = frontier.DepthFirst } }

// WithTransport sets the HTTP transport under heed's downloader (for
// example one trusting a test server's certificate, or going through a
// proxy): pages, robots.txt and sitemaps are all fetched on it. Start
// from download.DefaultTransport to keep heed's timeouts and pool sizes.
func WithTransport(rt http.RoundTripper) Option { return func(c *config) { c.transport = rt } }

// WithSkipLog writes the skip log, one JSON object per line, to w.
func WithSkipLog(w io.Writer) Option { return func(c *config) { c.skipOut = w } }

// WithLogger sets the crawl's logger. Without it, warnings and errors go
// to slog's default logger (standard error unless the program set
// another) and the rest is dropped; see logging.go for what is logged.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClock sets the clock used for robots.txt freshness and the skip log.
// Waits (pacing, a robots.txt still pending, a retry) are slept on the
// system clock, so a clock set apart from the system's moves the stamps
// and the freshness, never strands the crawl.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

func (c *config) defaults() {
	if c.workers <= 0 {
		c.workers = 16
	}
	if c.perHost <= 0 {
		c.perHost = 1
	}
	if c.maxElements <= 0 {
		c.maxElements = DefaultMaxPageElements
	}
	if c.maxLinks <= 0 {
		c.maxLinks = DefaultMaxLinksPerPage
	}
	switch {
	case c.hostGiveUp == 0:
		c.hostGiveUp = politeness.DefaultGiveUp
	case c.hostGiveUp < 0:
		c.hostGiveUp = 0 // never
	}
	if !c.floorSet {
		c.floor = time.Second
	}
	if c.maxDelay <= 0 {
		c.maxDelay = 30 * time.Second
	}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	if c.maxBody <= 0 {
		c.maxBody = 10 << 20
	}
	if c.maxRedirect <= 0 {
		c.maxRedirect = 10
	}
	if !c.retrySet {
		c.retries, c.retryBase = 2, 2*time.Second
	}
	if c.logger == nil {
		c.logger = warnings.Logger() // warnings and errors to slog's default of the moment
	}
	if c.now == nil {
		c.now = time.Now
	}
}

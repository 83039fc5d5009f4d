package politeness

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Defaults of a Pacer made by [New] without options.
const (
	// DefaultFloor is the least interval between requests to one
	// authority ([WithFloor]).
	DefaultFloor = time.Second
	// DefaultConcurrency is how many requests to an authority with no
	// interval may be in flight at once ([WithConcurrency]); an authority
	// with an interval has at most one.
	DefaultConcurrency = 1
	// DefaultMaxCrawlDelay is the largest Crawl-delay honoured; above it
	// the authority is excluded ([WithMaxCrawlDelay]).
	DefaultMaxCrawlDelay = 30 * time.Second
	// DefaultBackoffBase is the pause after a first failure ([WithBackoff]).
	DefaultBackoffBase = time.Second
	// DefaultBackoffMax is the longest backoff pause ([WithBackoff]).
	DefaultBackoffMax = 5 * time.Minute
	// DefaultMaxPause is the longest pause a Retry-After may impose
	// ([WithMaxPause]).
	DefaultMaxPause = 10 * time.Minute
)

// config is a Pacer's settings; it does not change after New.
type config struct {
	floor         time.Duration
	concurrency   int
	maxCrawlDelay time.Duration
	backoffBase   time.Duration
	backoffMax    time.Duration
	maxPause      time.Duration
	clock         Clock
	logger        *slog.Logger
}

// Option is an optional setting of a Pacer, passed to [New].
type Option func(*config)

// WithFloor sets the least interval between requests to one authority,
// whatever its robots.txt says (default 1 s). Zero means no spacing for
// authorities without a Crawl-delay.
func WithFloor(d time.Duration) Option { return func(c *config) { c.floor = d } }

// WithConcurrency sets how many requests to one authority may be in flight
// at once (default 1). It applies to authorities whose interval is zero (no
// floor and no Crawl-delay): an authority with an interval has at most one
// request in flight, whatever n is, because only then is the gap between
// arrivals at the server guaranteed, whatever the network or the machine's
// load does to requests on their way.
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// WithMaxCrawlDelay sets the largest Crawl-delay heed honours (default
// 30 s). An authority asking for more is excluded (see [DelayTooLongError]).
// Zero excludes every authority with a positive Crawl-delay.
func WithMaxCrawlDelay(d time.Duration) Option {
	return func(c *config) { c.maxCrawlDelay = d }
}

// WithBackoff sets the exponential backoff after failures (429 or 503
// without Retry-After, other 5xx, network errors): the first failure pauses
// the authority for base, each further consecutive failure doubles the pause
// up to max (defaults 1 s and 5 min). WithBackoff(0, 0) turns backoff off.
func WithBackoff(base, max time.Duration) Option {
	return func(c *config) { c.backoffBase, c.backoffMax = base, max }
}

// WithMaxPause caps how long a Retry-After header may pause an authority
// (default 10 min). A longer Retry-After is cut to the cap and logged at
// warning level.
func WithMaxPause(d time.Duration) Option { return func(c *config) { c.maxPause = d } }

// WithClock sets the Pacer's source of time (default the system clock).
func WithClock(clk Clock) Option { return func(c *config) { c.clock = clk } }

// WithLogger sets the logger for the rare events worth a line, such as a
// capped Retry-After (default slog.Default() at the time of logging).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

func defaultConfig() config {
	return config{
		floor:         DefaultFloor,
		concurrency:   DefaultConcurrency,
		maxCrawlDelay: DefaultMaxCrawlDelay,
		backoffBase:   DefaultBackoffBase,
		backoffMax:    DefaultBackoffMax,
		maxPause:      DefaultMaxPause,
		clock:         systemClock{},
	}
}

func (c *config) validate() error {
	var errs []error
	if c.floor < 0 {
		errs = append(errs, fmt.Errorf("negative floor %v", c.floor))
	}
	if c.concurrency < 1 {
		errs = append(errs, fmt.Errorf("concurrency %d is below 1", c.concurrency))
	}
	if c.maxCrawlDelay < 0 {
		errs = append(errs, fmt.Errorf("negative crawl-delay cap %v", c.maxCrawlDelay))
	}
	if c.backoffBase < 0 || c.backoffMax < 0 {
		errs = append(errs, fmt.Errorf("negative backoff %v, %v", c.backoffBase, c.backoffMax))
	} else if c.backoffBase > c.backoffMax {
		errs = append(errs, fmt.Errorf("backoff base %v above its max %v", c.backoffBase, c.backoffMax))
	} else if c.backoffBase == 0 && c.backoffMax > 0 {
		errs = append(errs, fmt.Errorf("backoff base 0 with max %v cannot grow", c.backoffMax))
	}
	if c.maxPause < 0 {
		errs = append(errs, fmt.Errorf("negative pause cap %v", c.maxPause))
	}
	if c.clock == nil {
		errs = append(errs, errors.New("nil clock"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("politeness: %w", errors.Join(errs...))
	}
	return nil
}

func (c *config) log() *slog.Logger {
	if c.logger != nil {
		return c.logger
	}
	return slog.Default()
}

// backoffFor returns the pause after the given number of consecutive
// failures: base, doubling, at most max.
func (c *config) backoffFor(failures int) time.Duration {
	d := c.backoffBase
	for i := 1; i < failures && d < c.backoffMax; i++ {
		if d > c.backoffMax/2 {
			return c.backoffMax
		}
		d *= 2
	}
	return min(d, c.backoffMax)
}

// intervalFor returns the spacing of an authority with the given
// Crawl-delay; an excluded authority keeps the floor.
func (c *config) intervalFor(crawlDelay time.Duration) time.Duration {
	if crawlDelay > c.maxCrawlDelay {
		return c.floor
	}
	return max(c.floor, crawlDelay)
}

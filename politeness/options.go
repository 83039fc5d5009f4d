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
	// DefaultGiveUp is how many requests in a row an authority may leave
	// without any answer before its remaining requests are given up.
	DefaultGiveUp = 5
)

// Settings are a Pacer's settings, as [NewSettings] makes them from
// Options; they do not change after New. heed's fleet pacer, redispacer,
// takes the same Options, so what each setting means, its default and
// which values make sense are written once, here.
type Settings struct {
	Floor         time.Duration // [WithFloor]
	Concurrency   int           // [WithConcurrency]
	MaxCrawlDelay time.Duration // [WithMaxCrawlDelay]
	BackoffBase   time.Duration // [WithBackoff]
	BackoffMax    time.Duration // [WithBackoff]
	MaxPause      time.Duration // [WithMaxPause]
	GiveUp        int           // [WithGiveUp]
	Clock         Clock         // [WithClock]
	Logger        *slog.Logger  // [WithLogger]; nil: slog.Default()
	StartLog      int           // [WithStartLog]
	AutoThrottle  *AutoThrottle // [WithAutoThrottle]; nil: off
}

// Option is an optional setting of a Pacer, passed to [New].
type Option func(*Settings)

// WithFloor sets the least interval between requests to one authority,
// whatever its robots.txt says (default 1 s). Zero means no spacing for
// authorities without a Crawl-delay.
func WithFloor(d time.Duration) Option { return func(c *Settings) { c.Floor = d } }

// WithConcurrency sets how many requests to one authority may be in flight
// at once (default 1). It applies to authorities whose interval is zero (no
// floor and no Crawl-delay): an authority with an interval has at most one
// request in flight, whatever n is, because only then is the gap between
// arrivals at the server guaranteed, whatever the network or the machine's
// load does to requests on their way.
func WithConcurrency(n int) Option { return func(c *Settings) { c.Concurrency = n } }

// WithMaxCrawlDelay sets the largest Crawl-delay heed honours (default
// 30 s). An authority asking for more is excluded (see [DelayTooLongError]).
// Zero excludes every authority with a positive Crawl-delay.
func WithMaxCrawlDelay(d time.Duration) Option {
	return func(c *Settings) { c.MaxCrawlDelay = d }
}

// WithBackoff sets the exponential backoff after failures (429 or 503
// without Retry-After, other 5xx, network errors): the first failure pauses
// the authority for base, each further consecutive failure doubles the pause
// up to max (defaults 1 s and 5 min). WithBackoff(0, 0) turns backoff off.
func WithBackoff(base, max time.Duration) Option {
	return func(c *Settings) { c.BackoffBase, c.BackoffMax = base, max }
}

// WithMaxPause caps how long a Retry-After header may pause an authority
// (default 10 min). A longer Retry-After is cut to the cap and logged at
// warning level.
func WithMaxPause(d time.Duration) Option { return func(c *Settings) { c.MaxPause = d } }

// WithGiveUp sets how many requests in a row may end without any answer
// from the authority (a network error or a timeout; an HTTP error status
// is an answer) before the authority is given up (default
// [DefaultGiveUp]): from then on TryAcquire and Wait return an
// [*UnreachableError] for it, and heed records each of its remaining URLs
// once with that evidence instead of trying them one by one, each with
// its retries and backoff. Zero never gives up.
func WithGiveUp(failures int) Option { return func(c *Settings) { c.GiveUp = failures } }

// WithClock sets the Pacer's source of time (default the system clock).
func WithClock(clk Clock) Option { return func(c *Settings) { c.Clock = clk } }

// WithLogger sets the logger for the rare events worth a line, such as a
// capped Retry-After (default slog.Default() at the time of logging).
func WithLogger(l *slog.Logger) Option { return func(c *Settings) { c.Logger = l } }

// WithStartLog makes the Pacer keep the times of the last n request starts
// of each authority, for a live view of the spacing ([Pacer.Starts],
// [Pacer.RecentStarts]). The default, 0, keeps none and costs nothing; with
// a log, each authority holds n times (24 bytes each) once it has started a
// request, and a start costs a few stores under the lock it already takes.
// A fleet pacer ignores it.
func WithStartLog(n int) Option { return func(c *Settings) { c.StartLog = n } }

// NewSettings returns the default settings (the Default constants and the
// system clock) changed by opts, or an error naming every setting that
// makes no sense, such as a negative floor.
func NewSettings(opts ...Option) (Settings, error) {
	c := Settings{
		Floor:         DefaultFloor,
		Concurrency:   DefaultConcurrency,
		MaxCrawlDelay: DefaultMaxCrawlDelay,
		BackoffBase:   DefaultBackoffBase,
		BackoffMax:    DefaultBackoffMax,
		MaxPause:      DefaultMaxPause,
		GiveUp:        DefaultGiveUp,
		Clock:         systemClock{},
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c, c.validate()
}

func (c *Settings) validate() error {
	var errs []error
	if c.Floor < 0 {
		errs = append(errs, fmt.Errorf("negative floor %v", c.Floor))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("concurrency %d is below 1", c.Concurrency))
	}
	if c.MaxCrawlDelay < 0 {
		errs = append(errs, fmt.Errorf("negative crawl-delay cap %v", c.MaxCrawlDelay))
	}
	if c.BackoffBase < 0 || c.BackoffMax < 0 {
		errs = append(errs, fmt.Errorf("negative backoff %v, %v", c.BackoffBase, c.BackoffMax))
	} else if c.BackoffBase > c.BackoffMax {
		errs = append(errs, fmt.Errorf("backoff base %v above its max %v", c.BackoffBase, c.BackoffMax))
	} else if c.BackoffBase == 0 && c.BackoffMax > 0 {
		errs = append(errs, fmt.Errorf("backoff base 0 with max %v cannot grow", c.BackoffMax))
	}
	if c.GiveUp < 0 {
		errs = append(errs, fmt.Errorf("negative give-up count %d", c.GiveUp))
	}
	if c.AutoThrottle != nil {
		if err := c.AutoThrottle.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.StartLog < 0 {
		errs = append(errs, fmt.Errorf("negative start log size %d", c.StartLog))
	}
	if c.MaxPause < 0 {
		errs = append(errs, fmt.Errorf("negative pause cap %v", c.MaxPause))
	}
	if c.Clock == nil {
		errs = append(errs, errors.New("nil clock"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("politeness: %w", errors.Join(errs...))
	}
	return nil
}

// Log returns the Logger, or slog.Default() when it is nil, at the time of
// logging.
func (c *Settings) Log() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// backoffFor returns the pause after the given number of consecutive
// failures: base, doubling, at most max.
func (c *Settings) backoffFor(failures int) time.Duration {
	d := c.BackoffBase
	for i := 1; i < failures && d < c.BackoffMax; i++ {
		if d > c.BackoffMax/2 {
			return c.BackoffMax
		}
		d *= 2
	}
	return min(d, c.BackoffMax)
}

// intervalFor returns the spacing of an authority with the given
// Crawl-delay, AutoThrottle aside; an excluded authority keeps the floor.
func (c *Settings) intervalFor(crawlDelay time.Duration) time.Duration {
	if crawlDelay > c.MaxCrawlDelay {
		return c.Floor
	}
	return max(c.Floor, crawlDelay)
}

package redispacer

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/heedcrawl/heed/politeness"
)

// DefaultSlotTimeout is how long a booked start counts as in flight without
// renewal ([WithSlotTimeout]).
const DefaultSlotTimeout = 30 * time.Second

// callTimeout bounds ReadyAt, which has no context and whose answer is
// only advice.
const callTimeout = 2 * time.Second

// config is a Pacer's settings; it does not change after New.
type config struct {
	floor         time.Duration
	concurrency   int
	maxCrawlDelay time.Duration
	backoffBase   time.Duration
	backoffMax    time.Duration
	maxPause      time.Duration
	slotTimeout   time.Duration
	logger        *slog.Logger
}

// Option is an optional setting of a Pacer, passed to [New]. The pacing
// settings mean what politeness's options of the same name mean, and take
// the same defaults; every process of a crawl should use the same ones,
// since each applies its own when it books a start.
type Option func(*config)

// WithFloor sets the least interval between requests to one authority
// (default [politeness.DefaultFloor]). Zero means no spacing for
// authorities without a Crawl-delay.
func WithFloor(d time.Duration) Option { return func(c *config) { c.floor = d } }

// WithConcurrency sets how many requests to one authority may be in flight
// at once across the whole crawl (default [politeness.DefaultConcurrency]).
// As in politeness, it applies to authorities whose interval is zero (no
// floor and no Crawl-delay): an authority with an interval has at most one
// request in flight fleet-wide, whatever n is, because only then is the gap
// between arrivals at the server guaranteed.
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// WithMaxCrawlDelay sets the largest Crawl-delay honoured (default
// [politeness.DefaultMaxCrawlDelay]); an authority asking for more is
// excluded with a [*politeness.DelayTooLongError].
func WithMaxCrawlDelay(d time.Duration) Option {
	return func(c *config) { c.maxCrawlDelay = d }
}

// WithBackoff sets the exponential backoff after failures: base after the
// first, doubling up to max (defaults [politeness.DefaultBackoffBase] and
// [politeness.DefaultBackoffMax]). WithBackoff(0, 0) turns it off.
func WithBackoff(base, max time.Duration) Option {
	return func(c *config) { c.backoffBase, c.backoffMax = base, max }
}

// WithMaxPause caps the pause a Retry-After header may impose (default
// [politeness.DefaultMaxPause]); a longer one is cut and logged.
func WithMaxPause(d time.Duration) Option { return func(c *config) { c.maxPause = d } }

// WithSlotTimeout sets how long a booked start counts as in flight unless
// renewed (default [DefaultSlotTimeout]). The Pacer renews the starts it
// booked every third of that until they are released, so the timeout is
// how long a process that died mid-request keeps a slot of its authority.
// Values under 100 ms are raised to 100 ms.
func WithSlotTimeout(d time.Duration) Option { return func(c *config) { c.slotTimeout = d } }

// WithLogger sets the logger for the events worth a line: a capped
// Retry-After, a release that could not reach Redis, a slot that expired
// while its request was in flight (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

func defaultConfig() config {
	return config{
		floor:         politeness.DefaultFloor,
		concurrency:   politeness.DefaultConcurrency,
		maxCrawlDelay: politeness.DefaultMaxCrawlDelay,
		backoffBase:   politeness.DefaultBackoffBase,
		backoffMax:    politeness.DefaultBackoffMax,
		maxPause:      politeness.DefaultMaxPause,
		slotTimeout:   DefaultSlotTimeout,
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
	if len(errs) > 0 {
		return fmt.Errorf("redispacer: %w", errors.Join(errs...))
	}
	c.slotTimeout = max(c.slotTimeout, 100*time.Millisecond)
	return nil
}

func (c *config) log() *slog.Logger {
	if c.logger != nil {
		return c.logger
	}
	return slog.Default()
}

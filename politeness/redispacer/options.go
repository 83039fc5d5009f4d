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
	politeness.Settings
	slotTimeout time.Duration
}

// options is what New's options collect: the pacing options, in the order
// given, and the slot timeout.
type options struct {
	pacing      []politeness.Option
	slotTimeout time.Duration
}

// Option is an optional setting of a Pacer, passed to [New]. Every process
// of a crawl should use the same ones, since each applies its own when it
// books a start.
type Option func(*options)

// WithPacing sets the pacing with politeness's own options: the floor,
// the concurrency, the Crawl-delay cap, the backoff, the Retry-After cap,
// the give-up count and the logger mean here what they mean for a politeness.Pacer, fleet-wide
// instead of per process, and take the same defaults; so one list of
// options can configure both pacers. politeness.WithClock does not apply
// (every process reads Redis's clock): New refuses it.
func WithPacing(opts ...politeness.Option) Option {
	return func(o *options) { o.pacing = append(o.pacing, opts...) }
}

// WithFloor is WithPacing(politeness.WithFloor(d)): the least interval
// between requests to one authority.
func WithFloor(d time.Duration) Option { return WithPacing(politeness.WithFloor(d)) }

// WithConcurrency is WithPacing(politeness.WithConcurrency(n)): how many
// requests to one authority may be in flight at once across the whole
// crawl, for authorities whose interval is zero; one with an interval has
// at most one request in flight fleet-wide.
func WithConcurrency(n int) Option { return WithPacing(politeness.WithConcurrency(n)) }

// WithMaxCrawlDelay is WithPacing(politeness.WithMaxCrawlDelay(d)): the
// largest Crawl-delay honoured; an authority asking for more is excluded
// with a [*politeness.DelayTooLongError].
func WithMaxCrawlDelay(d time.Duration) Option {
	return WithPacing(politeness.WithMaxCrawlDelay(d))
}

// WithBackoff is WithPacing(politeness.WithBackoff(base, max)): the
// exponential backoff after failures.
func WithBackoff(base, max time.Duration) Option {
	return WithPacing(politeness.WithBackoff(base, max))
}

// WithMaxPause is WithPacing(politeness.WithMaxPause(d)): the cap on the
// pause a Retry-After header may impose.
func WithMaxPause(d time.Duration) Option { return WithPacing(politeness.WithMaxPause(d)) }

// WithLogger is WithPacing(politeness.WithLogger(l)). The fleet's Pacer
// says what the in-process one says (a capped Retry-After, a 429 or 503
// that pauses an authority, never one that finds a longer pause in force,
// an authority given up), and besides a release that could not reach
// Redis and a slot that expired while its request was in flight.
func WithLogger(l *slog.Logger) Option { return WithPacing(politeness.WithLogger(l)) }

// WithSlotTimeout sets how long a booked start counts as in flight unless
// renewed (default [DefaultSlotTimeout]). The Pacer renews the starts it
// booked every third of that until they are released, so the timeout is
// how long a process that died mid-request keeps a slot of its authority.
// Values under 100 ms are raised to 100 ms.
func WithSlotTimeout(d time.Duration) Option {
	return func(o *options) { o.slotTimeout = d }
}

// newConfig applies opts to the defaults, with politeness's validation of
// the pacing settings.
func newConfig(opts []Option) (config, error) {
	o := options{slotTimeout: DefaultSlotTimeout}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	pacing, err := politeness.NewSettings(o.pacing...)
	if err != nil {
		return config{}, fmt.Errorf("redispacer: %w", err)
	}
	if pacing.AutoThrottle != nil {
		return config{}, errors.New("redispacer: politeness.WithAutoThrottle does not apply: the fleet pacer keeps each authority's interval in Redis, without latency feedback")
	}
	if defaults, _ := politeness.NewSettings(); pacing.Clock != defaults.Clock {
		return config{}, errors.New("redispacer: politeness.WithClock does not apply: every process of a crawl reads Redis's clock")
	}
	return config{Settings: pacing, slotTimeout: max(o.slotTimeout, 100*time.Millisecond)}, nil
}

package testweb

import (
	"log/slog"
	"time"
)

// DefaultSlowDelay is how long the "slow" host takes to answer its
// robots.txt unless [WithTimeout] says otherwise.
const DefaultSlowDelay = 3 * time.Second

// DefaultHitLimit is how many requests a Site records before it starts
// counting them as dropped (see [Site.DroppedHits]).
const DefaultHitLimit = 2_000_000

// Option configures a Site.
type Option func(*config)

type config struct {
	slowDelay     time.Duration
	latency       time.Duration
	clock         func() time.Time
	logger        *slog.Logger
	hitLimit      int
	singleAddress string
}

func newConfig(opts []Option) config {
	c := config{
		slowDelay: DefaultSlowDelay,
		clock:     time.Now,
		logger:    slog.New(slog.DiscardHandler),
		hitLimit:  DefaultHitLimit,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithTimeout sets how long the "slow" host waits before answering its
// robots.txt (default [DefaultSlowDelay]). A crawler under test must give
// up on robots.txt sooner than this for the slow host to count as
// unreachable; tests use short values on both sides, for example a 300 ms
// delay against a 100 ms robots timeout.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.slowDelay = d
		}
	}
}

// WithLatency adds d to every response of every host, after the request
// has been recorded.
func WithLatency(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.latency = d
		}
	}
}

// WithClock sets the clock that stamps [Hit.Time] and [Hit.Done], so that
// a test can compare hits with its crawler's own fake clock. Sleeps (the
// slow host, latency) still use real time.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithLogger makes the site log every request at debug level and server
// errors at warn level. The default discards everything.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithHitLimit caps the number of recorded requests (default
// [DefaultHitLimit]); requests beyond it are served but only counted.
func WithHitLimit(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.hitLimit = n
		}
	}
}

// WithSingleAddress binds every host to the one loopback address ip (for
// example "127.0.0.1"), each on its own kernel-chosen port, instead of one
// address 127.0.0.N per host. Use it on systems where only 127.0.0.1 is
// configured; authorities stay distinct because their ports differ.
func WithSingleAddress(ip string) Option {
	return func(c *config) { c.singleAddress = ip }
}

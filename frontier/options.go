package frontier

import "time"

// Order is the order in which an authority's requests of equal priority are
// handed out.
type Order uint8

const (
	// BreadthFirst hands out shallower requests first, and requests of
	// equal depth first in, first out. It is the default: a crawl that
	// stops early has covered the pages closest to its seeds.
	BreadthFirst Order = iota
	// DepthFirst hands out deeper requests first, and requests of equal
	// depth last in, first out: a crawl follows one path down before the
	// next, as Scrapy does by default.
	DepthFirst
)

// String returns "breadth-first" or "depth-first".
func (o Order) String() string {
	switch o {
	case BreadthFirst:
		return "breadth-first"
	case DepthFirst:
		return "depth-first"
	}
	return "unknown"
}

// Less reports whether a is handed out before b when both are queued for
// the same authority: higher Priority first; then lower Depth for
// BreadthFirst, higher Depth for DepthFirst; then lower Seq (FIFO) for
// BreadthFirst, higher Seq (LIFO) for DepthFirst. Backends share it so that
// every frontier orders requests alike.
func (o Order) Less(a, b *Request) bool {
	return keyLess(o, a.Priority, a.Depth, a.Seq, b.Priority, b.Depth, b.Seq)
}

// keyLess is Order.Less on the three fields it reads.
func keyLess(o Order, ap, ad int, as uint64, bp, bd int, bs uint64) bool {
	if ap != bp {
		return ap > bp
	}
	if o == DepthFirst {
		if ad != bd {
			return ad > bd
		}
		return as > bs
	}
	if ad != bd {
		return ad < bd
	}
	return as < bs
}

// Config is the resolved form of a list of Options. NewMemory builds one
// with NewConfig; backends in other packages do the same, so that one list
// of options configures any frontier.
type Config struct {
	// Gate says when an authority may next be fetched; nil means always.
	Gate Gate
	// Order orders each authority's queue.
	Order Order
	// LeasesPerAuthority is the most requests of one authority leased at
	// once; at least 1.
	LeasesPerAuthority int
	// Admit, when not nil, is asked about every new URL after
	// deduplication; an error rejects the URL.
	Admit func(*Request) error
	// Now returns the current time.
	Now func() time.Time
	// AfterFunc calls f in its own goroutine once d has passed, unless
	// stop is called first; stop reports whether it prevented the call.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// Option configures a frontier.
type Option func(*Config)

// NewConfig returns the default configuration with opts applied: no gate
// (every authority always ready), BreadthFirst, one lease per authority, no
// admission function, and the system clock.
func NewConfig(opts ...Option) Config {
	c := Config{
		Order:              BreadthFirst,
		LeasesPerAuthority: 1,
		Now:                time.Now,
		AfterFunc:          systemAfterFunc,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.LeasesPerAuthority < 1 {
		c.LeasesPerAuthority = 1
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.AfterFunc == nil {
		c.AfterFunc = systemAfterFunc
	}
	return c
}

func systemAfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// WithGate makes the frontier hand out a request only when g says its
// authority is ready. heed's politeness.Pacer is the usual gate.
//
// The frontier asks when an authority reaches the front of the ready
// authorities, again when the time it was told comes (the answer may have
// moved later), and whenever one of the authority's leases ends. A ready
// time that moves earlier in between is noticed at the next of these. The
// Memory frontier asks with its lock held: ReadyAt must not call the
// frontier.
func WithGate(g Gate) Option { return func(c *Config) { c.Gate = g } }

// WithOrder sets the order of each authority's queue (default
// BreadthFirst).
func WithOrder(o Order) Option { return func(c *Config) { c.Order = o } }

// WithLeasesPerAuthority sets how many requests of one authority may be
// leased at once (default 1; values below 1 mean 1). It is the frontier's
// side of per-authority concurrency: with the default, a host's next request
// is handed out only after the previous one is Done or Retried.
func WithLeasesPerAuthority(n int) Option {
	return func(c *Config) { c.LeasesPerAuthority = n }
}

// WithAdmit sets the admission function, asked about every new URL after
// deduplication and before queuing, with req.URL already canonical. A
// non-nil error rejects the URL: Push returns Rejected and that error as is,
// and the URL counts as seen. heed's scope stage is the usual admission
// function. It is called without the frontier's lock held and may be called
// from several goroutines at once.
func WithAdmit(fn func(req *Request) error) Option {
	return func(c *Config) { c.Admit = fn }
}

// WithClock sets the frontier's source of the current time (default
// time.Now). Timers still run on real time, for the duration between the
// clock's now and the wake-up time; tests that also control timers add
// WithAfterFunc.
func WithClock(now func() time.Time) Option { return func(c *Config) { c.Now = now } }

// WithAfterFunc sets how the frontier arms its wake-up timer (default
// time.AfterFunc): f must call fn in its own goroutine once d has passed on
// the frontier's clock, unless stop is called first. With WithClock it lets
// a test run a frontier on a manual clock that never sleeps.
func WithAfterFunc(f func(d time.Duration, fn func()) (stop func() bool)) Option {
	return func(c *Config) { c.AfterFunc = f }
}

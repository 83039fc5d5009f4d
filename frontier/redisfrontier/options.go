package redisfrontier

import (
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// Defaults of a Frontier made by [NewFrontier] without options.
const (
	// DefaultLeaseTimeout is how long a lease lasts without renewal
	// ([WithLeaseTimeout]).
	DefaultLeaseTimeout = 30 * time.Second
	// DefaultPollInterval is the longest a blocked Next waits before
	// asking Redis again without being woken ([WithPollInterval]).
	DefaultPollInterval = time.Second
)

// Option is an optional setting of a Frontier, passed to [NewFrontier].
type Option func(*settings)

type settings struct {
	check    func(*frontier.Request) error
	fopts    []frontier.Option
	leaseTTL time.Duration
	poll     time.Duration
}

// WithFrontierOptions passes heed's frontier options: the Gate, the Order,
// the leases per authority and the admission function, as for
// [frontier.NewMemory]. The clock of [frontier.WithClock] converts the
// times given to Retry and returned by a Gate into waits; WithAfterFunc is
// not used (waits run on Redis time).
//
// The Order is the crawl's: the first process fixes it, and a process that
// asks for another one is refused by NewFrontier. Every process of a crawl
// should use the same leases per authority, since each enforces its own
// number when it takes a request.
func WithFrontierOptions(opts ...frontier.Option) Option {
	return func(s *settings) { s.fopts = append(s.fopts, opts...) }
}

// WithLeaseTimeout sets how long a lease lasts unless renewed (default
// [DefaultLeaseTimeout]). The Frontier renews its leases every third of
// that while their requests are in flight, so the timeout bounds how long
// the requests of a process that died stay out before another process gets
// them; and a process cut off from Redis for longer loses its leases (see
// [ErrLeaseLost]). Values under 100 ms are raised to 100 ms.
func WithLeaseTimeout(d time.Duration) Option { return func(s *settings) { s.leaseTTL = d } }

// WithPollInterval sets the longest a blocked Next waits before asking
// Redis again when nothing woke it (default [DefaultPollInterval]): the
// bound on the delay a lost wake-up message can cause. Values under 10 ms
// are raised to 10 ms.
func WithPollInterval(d time.Duration) Option { return func(s *settings) { s.poll = d } }

// WithCheck sets a side-effect-free admission check, asked in this process
// before the crawl's seen set: a request it passes is deduplicated and
// queued in one script call, with no claim and no admission function, so
// that a page's links (see [Frontier.PushBatch]) cost one round trip. A
// request it refuses goes on as without it: to the admission function of
// WithFrontierOptions, after a claim that makes it the one process asking
// about the URL; with no admission function, it is marked seen and only
// the first Push of the URL anywhere in the crawl is Rejected, with the
// check's error. The check must give the same answer in every process and
// on every call; the admission function, when there is one, must refuse
// what the check refuses.
func WithCheck(check func(*frontier.Request) error) Option {
	return func(s *settings) { s.check = check }
}

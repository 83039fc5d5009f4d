package redispacer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// Pacer paces the requests of every process of a crawl per authority, with
// its state in Redis; see the package documentation. Make one per process
// with [New]. A Pacer is safe for concurrent use.
type Pacer struct {
	s      *redisstore.Store
	cfg    config
	prefix string // P: the pacer's key prefix

	id     string // this Pacer's part of slot tokens
	tokens atomic.Uint64

	mu    sync.Mutex
	slots map[string][]string // authority -> tokens of starts booked here, oldest first
	// gone holds the authorities this Pacer has seen given up, with the
	// evidence: a give-up is for good, so it is answered from here.
	gone map[string]*politeness.UnreachableError

	cancel context.CancelFunc
	bg     sync.WaitGroup
	once   sync.Once
}

var _ redisstore.StoredGate = (*Pacer)(nil)

// New returns a Pacer for the store's crawl with the polite defaults
// changed by opts, and starts renewing the slots it books in the
// background (Close stops that). It fails only on settings that make no
// sense, as politeness.New does; it does not contact Redis.
func New(s *redisstore.Store, opts ...Option) (*Pacer, error) {
	if s == nil {
		return nil, errors.New("redispacer: nil store")
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	p := &Pacer{
		s:      s,
		cfg:    cfg,
		prefix: s.Key("pace:"),
		id:     hex.EncodeToString(b[:]),
		slots:  make(map[string][]string),
		gone:   make(map[string]*politeness.UnreachableError),
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.bg.Add(1)
	go p.renewLoop(ctx)
	return p, nil
}

// Store returns the store the Pacer keeps its state in.
func (p *Pacer) Store() *redisstore.Store { return p.s }

// ReadyKeyPrefix returns the prefix of the hashes whose "ready" field holds
// each authority's ready time, for heed's Redis frontier (see
// [redisstore.StoredGate]).
func (p *Pacer) ReadyKeyPrefix() string { return p.prefix + "a:" }

func (p *Pacer) keys(authority string) []string {
	return []string{p.prefix + "a:" + authority, p.prefix + "s:" + authority}
}

// run runs a script on the store's clock with the common arguments (floor
// and cap, ARGV[2] and ARGV[3]) through the store's retries.
func (p *Pacer) run(ctx context.Context, op string, sc *redis.Script, authority string, args ...any) ([]int64, error) {
	argv := append([]any{redisstore.Micros(p.cfg.Floor), redisstore.Micros(p.cfg.MaxCrawlDelay)}, args...)
	cmd, err := p.s.Run(ctx, op, sc, p.keys(authority), argv...)
	var out []int64
	if err == nil {
		out, err = cmd.Int64Slice()
	}
	if err != nil {
		return nil, fmt.Errorf("redispacer: %s %s: %w", op, authority, err)
	}
	return out, nil
}

func micros(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

func (p *Pacer) tooLong(authority string, cd int64) *politeness.DelayTooLongError {
	return &politeness.DelayTooLongError{Authority: authority, Delay: micros(cd), Cap: p.cfg.MaxCrawlDelay}
}

// ReadyAt returns the earliest time a request to authority may start, as
// last stored by any process of the crawl; a time not after now means it
// may start now. It never books anything. While an authority with an
// interval has a request in flight in any process, it answers one interval
// from now at the soonest (later if a pause or an anchor says so), the same
// time TryAcquire gives as its retryAt, since the next start must follow
// that request's release. For an authority with no interval it ignores the
// concurrency limit (the frontier limits its leases itself). An excluded or
// unknown authority is ready at once.
//
// ReadyAt has no context: it waits at most 2 s for Redis and then answers
// the zero time (ready now) and logs, since TryAcquire still has the last
// word. heed's Redis frontier does not call it: it reads the same time
// inside its own script (see [redisstore.StoredGate]).
func (p *Pacer) ReadyAt(authority string) time.Time {
	if p.goneErr(authority) != nil {
		return time.Time{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	r, err := p.run(ctx, "ready", readyScript, authority)
	if err != nil {
		p.cfg.Log().Warn("redispacer: ReadyAt could not read the pacing; answering ready now", "authority", authority, "error", err.Error())
		return time.Time{}
	}
	return redisstore.LocalTime(r[0], r[1])
}

// TryAcquire books a request start to authority now if its pacing allows
// one, across the whole crawl, without blocking: the authority's interval
// has passed since its last start and its last release by any process, it
// is not paused, and no request to it is in flight in any process (for an
// authority with no interval: fewer than the concurrency limit). On ok the
// caller makes the request and then calls Release exactly once. Otherwise
// retryAt says when to try again, as politeness.Pacer's does: while an
// authority with an interval has a request in flight, one interval from
// now or later, what ReadyAt answers; at the concurrency limit of an
// authority with no interval, the zero time (after the next release) or
// the end of a pause. For an authority whose Crawl-delay is over the cap, err is the
// [*politeness.DelayTooLongError] and nothing is booked; for one given up
// (see Release), the [*politeness.UnreachableError] with its evidence,
// from this Pacer's memory once it has seen it.
//
// TryAcquire waits for Redis on ctx: if Redis cannot be reached within
// the store's retry budget, err wraps [redisstore.ErrUnavailable]; if ctx
// ends first, err wraps ctx's error. Either way the caller should put the
// request back rather than fetch it. Redis may have booked the start all
// the same (the script ran and its reply was lost, or ctx ended after it
// was sent), so TryAcquire then frees it before returning, waiting for
// Redis at most a second more whatever ctx says; if that fails too it
// logs, and the start frees itself after the slot timeout
// ([WithSlotTimeout]), holding the authority for the whole crawl until
// then.
func (p *Pacer) TryAcquire(ctx context.Context, authority string) (ok bool, retryAt time.Time, err error) {
	if gone := p.goneErr(authority); gone != nil {
		return false, time.Time{}, gone
	}
	token := p.id + "." + strconv.FormatUint(p.tokens.Add(1), 10)
	r, err := p.run(ctx, "acquire", tryScript, authority, p.cfg.Concurrency, token, redisstore.Micros(p.cfg.slotTimeout))
	if err != nil {
		p.unbook(ctx, authority, token, err)
		return false, time.Time{}, err
	}
	switch r[0] {
	case 1:
		p.mu.Lock()
		p.slots[authority] = append(p.slots[authority], token)
		p.mu.Unlock()
		return true, time.Time{}, nil
	case -1:
		return false, time.Time{}, p.tooLong(authority, r[1])
	case -2:
		return false, time.Time{}, p.givenUp(ctx, authority, r)
	}
	return false, redisstore.LocalTime(r[1], r[2]), nil
}

// unbookTimeout bounds how long TryAcquire waits for Redis to free a
// start it may have booked and could not hand to its caller.
const unbookTimeout = time.Second

// unbook frees the start token may have booked for authority, after the
// acquire that booked it failed with cause: TryAcquire could not tell its
// caller, so no Release would ever come. It keeps ctx's values but not its
// cancellation, since a stopping crawl is the common cause.
func (p *Pacer) unbook(ctx context.Context, authority, token string, cause error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unbookTimeout)
	defer cancel()
	r, err := p.run(ctx, "unbook", unbookScript, authority, token)
	if err != nil {
		p.cfg.Log().Warn("redispacer: a start the failed acquire may have booked could not be freed; it frees itself after the slot timeout",
			"authority", authority, "slot_timeout", p.cfg.slotTimeout, "acquire_error", cause.Error(), "error", err.Error())
		return
	}
	if r[0] == 1 {
		p.cfg.Log().Debug("redispacer: freed a start booked by an acquire whose answer was lost",
			"authority", authority, "acquire_error", cause.Error())
	}
}

// Wait blocks until it can book a request start to authority, exactly as
// TryAcquire would, or until ctx is done. It returns nil once the start is
// booked (the caller then calls Release), ctx's error if ctx ends first,
// the [*politeness.DelayTooLongError] of an excluded authority, or an
// error wrapping [redisstore.ErrUnavailable]. It polls Redis at the
// retry times TryAcquire gives, and every 50 ms while the authority waits
// for a release.
func (p *Pacer) Wait(ctx context.Context, authority string) error {
	for {
		ok, at, err := p.TryAcquire(ctx, authority)
		if ok || err != nil {
			return err
		}
		d := time.Until(at)
		if at.IsZero() || d < time.Millisecond {
			d = 50 * time.Millisecond
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// outcome is how a Feedback changes an authority's pacing, as
// politeness.Pacer.Release reads it: a 429 or 503 with a valid Retry-After
// pauses ("r"), a 429 or 503 without one, another 5xx or a network error
// is a failure ("f"), a response with another status a success ("s"), and
// no answer or heed stopping (context.Canceled) neutral ("n").
func outcome(fb politeness.Feedback, now time.Time) (string, time.Duration) {
	if fb.Status == http.StatusTooManyRequests || fb.Status == http.StatusServiceUnavailable {
		if d, ok := politeness.ParseRetryAfter(fb.RetryAfter, now); ok {
			return "r", d
		}
	}
	switch {
	case fb.Err != nil && errors.Is(fb.Err, context.Canceled):
		return "n", 0
	case fb.Err != nil:
		return "f", 0
	case fb.Status == 0:
		return "n", 0
	case fb.Status == http.StatusTooManyRequests, fb.Status >= 500:
		return "f", 0
	}
	return "s", 0
}

// Release ends a start booked by TryAcquire or Wait, as
// politeness.Pacer.Release does but for the whole crawl: it frees the slot,
// anchors the authority's next start one interval from now, and applies
// fb (Retry-After pauses, capped by [WithMaxPause] and logged when cut;
// backoff on failures; a success resets the backoff). A pause already set
// is never shortened. A Release without a booked start anchors all the
// same. The outcome of a booked start is applied once, even when a lost
// reply makes the store send the release again: a network blip does not
// count one failure twice, nor give an authority up early. The outcome
// of a start whose slot had expired and was cleared before the release
// (Renew logs the expiry) is not applied; its release only anchors.
//
// Release keeps ctx's values but not its cancellation: a request ended by
// a cancelled crawl still frees its slot for the other processes. It
// waits for Redis at most the slot timeout ([WithSlotTimeout]; less if
// the store's retry budget is shorter), since after that the slot has
// freed itself. Release has no error: a release not made is logged, and
// the anchor is lost (the start anchor still holds).
func (p *Pacer) Release(ctx context.Context, authority string, fb politeness.Feedback) {
	p.mu.Lock()
	token := ""
	if q := p.slots[authority]; len(q) > 0 {
		token = q[0]
		if len(q) == 1 {
			delete(p.slots, authority)
		} else {
			p.slots[authority] = q[1:]
		}
	}
	p.mu.Unlock()
	// A Retry-After date is read on the crawl's clock, like every pause.
	o, pause := outcome(fb, time.Now().Add(p.s.Offset()))
	if o == "r" && pause > p.cfg.MaxPause {
		p.cfg.Log().Warn("redispacer: Retry-After longer than the pause cap; pausing for the cap",
			"authority", authority, "retry_after", fb.RetryAfter, "asked", pause, "cap", p.cfg.MaxPause)
		pause = p.cfg.MaxPause
	}
	sil, lastErr := silence(fb)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.slotTimeout)
	defer cancel()
	r, err := p.run(ctx, "release", releaseScript, authority, token, o,
		redisstore.Micros(pause), redisstore.Micros(p.cfg.BackoffBase), redisstore.Micros(p.cfg.BackoffMax),
		sil, p.cfg.GiveUp, lastErr)
	if err != nil {
		p.cfg.Log().Error("redispacer: release lost; the slot frees itself after the slot timeout",
			"authority", authority, "slot_timeout", p.cfg.slotTimeout, "error", err.Error())
		return
	}
	// A slow-down is said when it pauses the authority, as politeness
	// says it: one that finds a longer pause in force (set by this process
	// or another) changes nothing and says nothing.
	paused := len(r) > 4 && r[4] == 1
	switch {
	case len(r) > 3 && r[3] == 1:
		p.cfg.Log().Warn("redispacer: authority given up for the whole crawl: requests in a row without an answer",
			"authority", authority, "failures", p.cfg.GiveUp, "last_error", lastErr)
	case o == "r" && paused:
		p.cfg.Log().Warn("redispacer: server asked to slow down; authority paused as Retry-After says",
			"authority", authority, "status", fb.Status, "retry_after", fb.RetryAfter, "pause", pause, "until", time.UnixMicro(r[1]).UTC())
	case o == "f" && paused && (fb.Status == http.StatusTooManyRequests || fb.Status == http.StatusServiceUnavailable):
		p.cfg.Log().Warn("redispacer: server asked to slow down; authority paused (backoff: no valid Retry-After)",
			"authority", authority, "status", fb.Status, "pause", micros(r[2]), "until", time.UnixMicro(r[1]).UTC())
	}
}

// SetCrawlDelay records, for the whole crawl, the Crawl-delay authority's
// robots.txt asks for (0 when none), as politeness.Pacer.SetCrawlDelay
// does: the interval becomes the larger of the floor and d, from the last
// start and release on; above the cap it returns a
// [*politeness.DelayTooLongError] and the authority is excluded until a
// later call within the cap. A negative d is an error and changes nothing.
// It waits for Redis on ctx, and fails with an error wrapping
// [redisstore.ErrUnavailable] if Redis cannot be reached within the
// store's retry budget, or wrapping ctx's error if ctx ends first.
func (p *Pacer) SetCrawlDelay(ctx context.Context, authority string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("redispacer: negative crawl-delay %v for %s", d, authority)
	}
	r, err := p.run(ctx, "crawl-delay", delayScript, authority, redisstore.Micros(d))
	if err != nil {
		return err
	}
	if r[0] == 1 {
		return &politeness.DelayTooLongError{Authority: authority, Delay: d, Cap: p.cfg.MaxCrawlDelay}
	}
	return nil
}

// State returns the crawl's pacing of authority, with times converted to
// this machine's clock. InFlight counts the starts booked by every process
// and not yet released or expired. For an authority never seen it returns
// the state a first request would meet.
func (p *Pacer) State(ctx context.Context, authority string) (politeness.AuthorityState, error) {
	r, err := p.run(ctx, "state", stateScript, authority)
	if err != nil {
		return politeness.AuthorityState{}, err
	}
	now := r[0]
	return politeness.AuthorityState{
		LastStart:   redisstore.LocalTime(r[1], now),
		LastRelease: redisstore.LocalTime(r[2], now),
		PausedUntil: redisstore.LocalTime(r[3], now),
		CrawlDelay:  micros(r[4]),
		Excluded:    micros(r[4]) > p.cfg.MaxCrawlDelay,
		Failures:    int(r[5]),
		Backoff:     micros(r[6]),
		InFlight:    int(r[7]),
		Interval:    micros(r[8]),
	}, nil
}

// Close stops the renewal of this Pacer's slots; starts it booked and did
// not release free themselves after the slot timeout. The Pacer's other
// methods keep working. Closing twice is harmless.
func (p *Pacer) Close() error {
	p.once.Do(func() {
		p.cancel()
		p.bg.Wait()
	})
	return nil
}

package politeness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DelayTooLongError says that an authority's Crawl-delay is above the cap
// the Pacer was configured with, so the authority is excluded: heed skip-logs
// its URLs with reason crawl-delay-too-long instead of fetching them.
// [Pacer.SetCrawlDelay] returns it, and so do [Pacer.TryAcquire] and
// [Pacer.Wait] for the excluded authority.
type DelayTooLongError struct {
	Authority string
	Delay     time.Duration // the Crawl-delay the authority asked for
	Cap       time.Duration // the largest Crawl-delay heed honours
}

// Error says which authority asked for which Crawl-delay, and the cap.
func (e *DelayTooLongError) Error() string {
	return fmt.Sprintf("politeness: crawl-delay %v of %s exceeds the cap of %v", e.Delay, e.Authority, e.Cap)
}

// UnreachableError says that an authority left [Settings].GiveUp requests
// in a row without any answer (see [WithGiveUp]), so heed gives up its
// remaining requests: [Pacer.TryAcquire] and [Pacer.Wait] return it for
// the authority from then on, and heed writes one skip-log record per URL
// (reason host-unreachable) with it as the evidence.
type UnreachableError struct {
	Authority string
	Failures  int       // requests in a row without an answer
	Since     time.Time // when the first of them ended
	Last      time.Time // when the last of them ended
	LastErr   string    // the last one's error
}

// Error says which authority, how many requests failed since when, and
// the last error.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("politeness: %s left %d requests in a row without an answer (%s to %s; last: %s); its remaining URLs are given up",
		e.Authority, e.Failures, e.Since.Format(time.RFC3339), e.Last.Format(time.RFC3339), e.LastErr)
}

// Pacer paces requests per authority; see the package documentation for the
// model. Make one with [New]. A Pacer is safe for concurrent use.
type Pacer struct {
	cfg Settings

	mu   sync.RWMutex
	auth map[string]*authority
	busy busySet // the authorities in flight or paused (busy.go)
}

// authority is the pacing state of one authority. Its fields are guarded by
// mu; a Pacer holds one per authority seen, so it is kept small.
type authority struct {
	mu sync.Mutex
	// lim spaces starts; nil when interval is 0. It is rebuilt when the
	// interval changes, replaying the last start.
	lim        *rate.Limiter
	interval   time.Duration
	crawlDelay time.Duration
	tooLong    *DelayTooLongError // non-nil while excluded
	backoff    time.Duration      // current backoff step, 0 after a success
	failures   int                // consecutive failures
	// silent counts the requests in a row that got no answer at all,
	// since silentSince; gone is set, for good, when they reach the
	// give-up count.
	silent      int
	silentSince time.Time
	gone        *UnreachableError
	inFlight    int
	pausedUntil time.Time
	lastStart   time.Time
	lastRelease time.Time
	// byRetryAfter says the pause in force was asked by a Retry-After
	// header (not a backoff).
	byRetryAfter bool
	// throttleDelay is AutoThrottle's delay (see autothrottle.go); 0
	// without AutoThrottle.
	throttleDelay time.Duration
	// starts keeps the latest request starts when the Pacer has a start
	// log ([WithStartLog]); nil otherwise.
	starts *startRing
	// wake is closed, and cleared, when anything may let a blocked Wait
	// through sooner; nil when nobody waits.
	wake chan struct{}
}

// New returns a Pacer with the polite defaults (floor 1 s, one request in
// flight per authority, Crawl-delay cap 30 s, backoff 1 s to 5 min,
// Retry-After cap 10 min) changed by opts. It fails only on settings that
// make no sense, such as a negative floor.
func New(opts ...Option) (*Pacer, error) {
	cfg, err := NewSettings(opts...)
	if err != nil {
		return nil, err
	}
	return &Pacer{cfg: cfg, auth: make(map[string]*authority)}, nil
}

// lookup returns the authority's state, or nil if it was never seen.
func (p *Pacer) lookup(name string) *authority {
	p.mu.RLock()
	a := p.auth[name]
	p.mu.RUnlock()
	return a
}

// get returns the authority's state, making it on first sight.
func (p *Pacer) get(name string) *authority {
	if a := p.lookup(name); a != nil {
		return a
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if a := p.auth[name]; a != nil {
		return a
	}
	a := &authority{}
	if at := p.cfg.AutoThrottle; at != nil {
		a.throttleDelay = at.start(p.cfg.Floor)
	}
	a.setInterval(max(p.cfg.Floor, a.throttleDelay))
	p.auth[name] = a
	return a
}

// setInterval changes the spacing.
func (a *authority) setInterval(iv time.Duration) {
	if iv == a.interval && (iv > 0) == (a.lim != nil) {
		return
	}
	a.interval = iv
	a.resetLimiter()
}

// resetLimiter makes a limiter for the interval that replays the last
// start, so that a new interval applies to the gap since that start too.
func (a *authority) resetLimiter() {
	a.lim = nil
	if a.interval <= 0 {
		return
	}
	a.lim = rate.NewLimiter(rate.Every(a.interval), 1)
	if !a.lastStart.IsZero() {
		a.lim.AllowN(a.lastStart, 1)
	}
}

// notBefore is the earliest start that pauses and the two anchors allow.
// The start anchor is checked exactly here as well as by the limiter: the
// limiter's float64 token arithmetic admits a start up to a nanosecond
// before the interval has passed.
func (a *authority) notBefore() time.Time {
	t := a.pausedUntil
	if a.interval > 0 {
		if !a.lastRelease.IsZero() {
			t = later(t, a.lastRelease.Add(a.interval))
		}
		if !a.lastStart.IsZero() {
			t = later(t, a.lastStart.Add(a.interval))
		}
	}
	return t
}

// limiterReadyAt is when the limiter will have a token; the zero time if it
// has one at now. It changes nothing.
func (a *authority) limiterReadyAt(now time.Time) time.Time {
	if a.lim == nil {
		return time.Time{}
	}
	tokens := a.lim.TokensAt(now)
	if tokens >= 1 {
		return time.Time{}
	}
	// Mirrors the limiter's own rounding: it allows an event whose wait
	// truncates to 0 ns.
	ns := (1 - tokens) / float64(a.lim.Limit()) * float64(time.Second)
	if ns < 1 {
		return time.Time{}
	}
	return now.Add(time.Duration(math.Ceil(ns)))
}

// busy reports whether the authority can start nothing before a request in
// flight is released: with an interval, one request in flight is the limit.
func (a *authority) busy() bool {
	return a.interval > 0 && a.inFlight > 0
}

// readyAt is ReadyAt for a known authority; a.mu must be held.
func (a *authority) readyAt(now time.Time) time.Time {
	if a.tooLong != nil || a.gone != nil {
		return time.Time{}
	}
	if a.busy() {
		return a.busyRetryAt(now)
	}
	// The limiter is asked about the time the anchors allow, so that the
	// answer is good for TryAcquire even when the limiter runs late.
	nb := a.notBefore()
	t := later(nb, now)
	if lt := a.limiterReadyAt(t); lt.After(t) {
		return lt
	}
	return nb
}

// busyRetryAt is the soonest a busy authority may start again: the request
// in flight is released at now or later, and the next start follows that
// release by the interval, so the answer is one interval from now, or later
// if a pause, the start anchor or the limiter says so. ReadyAt and
// TryAcquire both answer with it. It is a lower bound, not a promise: the
// release decides.
func (a *authority) busyRetryAt(now time.Time) time.Time {
	t := later(a.notBefore(), now.Add(a.interval))
	if lt := a.limiterReadyAt(t); lt.After(t) {
		return lt
	}
	return t
}

// try is TryAcquire for a known authority; a.mu must be held.
func (a *authority) try(now time.Time, concurrency int) (bool, time.Time, error) {
	if a.gone != nil {
		return false, time.Time{}, a.gone
	}
	if a.tooLong != nil {
		return false, time.Time{}, a.tooLong
	}
	if a.busy() {
		// Spacing is promised at the server, and only one request in
		// flight guarantees it: the next start waits for the previous
		// release, so arrivals are an interval apart whatever the
		// network or the machine's load does to requests between booking
		// and the wire. Concurrency above 1 is for authorities with no
		// interval.
		return false, a.busyRetryAt(now), nil
	}
	t := a.notBefore()
	if a.inFlight >= concurrency {
		// No interval: only a release can tell, unless a pause ends
		// later.
		var at time.Time
		if t.After(now) {
			at = t
		}
		return false, at, nil
	}
	if t.After(now) {
		return false, t, nil
	}
	if a.lim != nil && !a.lim.AllowN(now, 1) {
		return false, later(now.Add(1), a.limiterReadyAt(now)), nil
	}
	a.inFlight++
	a.lastStart = now
	return true, time.Time{}, nil
}

// signal wakes blocked Wait calls; a.mu must be held.
func (a *authority) signal() {
	if a.wake != nil {
		close(a.wake)
		a.wake = nil
	}
}

// ReadyAt returns the earliest time a request to authority may start; a time
// not after now (including the zero time) means it may start now. It never
// blocks and never books anything, so calling it any number of times changes
// nothing, and a later TryAcquire may still fail if another caller books the
// slot first.
//
// An authority with an interval and a request in flight cannot start
// another before that request's release plus the interval, so ReadyAt
// answers one interval from now (or later, if a pause or an anchor says so):
// the soonest the next start could be if the release came at once, and the
// same time TryAcquire gives as its retryAt. For an authority with no
// interval ReadyAt ignores the concurrency limit, because heed's frontier
// limits its own leases per authority to the same number. An excluded
// authority (see [DelayTooLongError]) is ready at once, so that its requests
// reach TryAcquire and are skip-logged promptly. An authority never seen is
// ready at once.
//
// ReadyAt implements heed's frontier.Gate.
func (p *Pacer) ReadyAt(authority string) time.Time {
	a := p.lookup(authority)
	if a == nil {
		return time.Time{}
	}
	now := p.cfg.Clock.Now()
	a.mu.Lock()
	t := a.readyAt(now)
	a.mu.Unlock()
	return t
}

// TryAcquire books a request start to authority now if its pacing allows
// one, without blocking. On ok the caller makes the request and then calls
// [Pacer.Release] exactly once.
//
// Otherwise ok is false and retryAt says when to try again: the earliest
// time a start may be allowed (heed's politeness stage gives the request back
// to the frontier with it). An authority with an interval allows one
// request in flight, whatever [WithConcurrency] says; while it has one,
// retryAt is one interval from now (or later, if a pause or an anchor says
// so), because the next start must follow the release by that much, and it
// equals what ReadyAt answers. An authority with an interval of zero allows
// up to the concurrency limit; at the limit, retryAt is the end of a pause,
// or the zero time, meaning after the next release.
//
// For an authority excluded by its Crawl-delay, err is the
// [*DelayTooLongError] and nothing is booked.
//
// ctx is not consulted: a Pacer keeps its state in this process and
// answers at once. It is there for pacers that keep theirs elsewhere
// (package politeness/redispacer asks Redis on ctx), so that heed's
// politeness stage passes its request's context to either.
func (p *Pacer) TryAcquire(ctx context.Context, authority string) (ok bool, retryAt time.Time, err error) {
	a := p.get(authority)
	now := p.cfg.Clock.Now()
	a.mu.Lock()
	ok, retryAt, err = a.try(now, p.cfg.Concurrency)
	if ok {
		a.logStart(now, p.cfg.StartLog)
		p.busy.add(authority, a)
	}
	a.mu.Unlock()
	return ok, retryAt, err
}

// Wait blocks until it can book a request start to authority, exactly as
// TryAcquire would (so never while an authority with an interval has a
// request in flight), or until ctx is done. It returns nil once the start is
// booked (the caller then calls [Pacer.Release]), ctx's error if ctx ends
// first (nothing is booked), or the [*DelayTooLongError] of an excluded
// authority. Most callers should use TryAcquire and requeue instead; Wait is
// for a caller that cannot put its request back.
func (p *Pacer) Wait(ctx context.Context, authority string) error {
	a := p.get(authority)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := p.cfg.Clock.Now()
		a.mu.Lock()
		ok, at, err := a.try(now, p.cfg.Concurrency)
		if ok {
			a.logStart(now, p.cfg.StartLog)
			p.busy.add(authority, a)
		}
		if ok || err != nil {
			a.mu.Unlock()
			return err
		}
		// Registered under the same lock as the failed try, so that a
		// release in between cannot be missed.
		if a.wake == nil {
			a.wake = make(chan struct{})
		}
		wake := a.wake
		a.mu.Unlock()

		var timer <-chan time.Time
		if !at.IsZero() {
			timer = p.cfg.Clock.After(at.Sub(now))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer:
		case <-wake:
		}
	}
}

// Release ends a request booked by TryAcquire or Wait: it frees the slot,
// anchors the authority's next start one interval from now, and applies fb:
// a 429 or 503 with a valid Retry-After pauses the authority until then (at
// most the pause cap, see [WithMaxPause]); a 429 or 503 without one, another
// 5xx or a network error pauses it with exponential backoff; any other
// response resets the backoff. A pause already set is never shortened.
//
// A Release without a booked start is tolerated: it anchors the next start
// like any other, and the in-flight count never goes below zero.
//
// ctx is not consulted, as in TryAcquire: a Release always frees the slot,
// also after the crawl was cancelled.
func (p *Pacer) Release(ctx context.Context, authority string, fb Feedback) {
	a := p.get(authority)
	now := p.cfg.Clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight > 0 {
		a.inFlight--
	}
	a.lastRelease = now
	defer a.signal()
	a.noteSilence(authority, fb, now, p.cfg.GiveUp)
	out, pause := classify(fb, now)
	switch out {
	case success:
		a.failures, a.backoff = 0, 0
	case failure:
		if a.failures < math.MaxInt32 {
			a.failures++
		}
		a.backoff = p.cfg.backoffFor(a.failures)
		if a.pause(now.Add(a.backoff), false) && slowDown(fb.Status) {
			p.cfg.Log().Warn("politeness: server asked to slow down; authority paused (backoff: no valid Retry-After)",
				"authority", authority, "status", fb.Status, "pause", a.backoff, "until", a.pausedUntil.UTC(), "failures", a.failures)
		}
	case retryAfter:
		if pause > p.cfg.MaxPause {
			p.cfg.Log().Warn("politeness: Retry-After longer than the pause cap; pausing for the cap",
				"authority", authority, "retry_after", fb.RetryAfter, "asked", pause, "cap", p.cfg.MaxPause)
			pause = p.cfg.MaxPause
		}
		if a.pause(now.Add(pause), true) {
			p.cfg.Log().Warn("politeness: server asked to slow down; authority paused as Retry-After says",
				"authority", authority, "status", fb.Status, "retry_after", fb.RetryAfter, "pause", pause, "until", a.pausedUntil.UTC())
		}
	}
	a.throttle(&p.cfg, fb)
	if a.idle(now) {
		p.busy.dropIfIdle(authority, a, now)
	} else {
		p.busy.add(authority, a)
	}
}

// pause extends the pause to until, remembering its cause when it is the
// one in force, and reports whether it did; a.mu must be held.
func (a *authority) pause(until time.Time, byRetryAfter bool) bool {
	if until.After(a.pausedUntil) {
		a.pausedUntil, a.byRetryAfter = until, byRetryAfter
		return true
	}
	return false
}

// slowDown reports whether a status is a server's request to slow down
// (429 Too Many Requests, 503 Service Unavailable): the pauses worth a
// warning. Backoffs after other failures are the retries' to tell.
func slowDown(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// noteSilence counts a request that got no answer at all (an error that
// is not heed stopping), resets the count on any answer, and gives the
// authority up when the count reaches giveUp; a.mu is held.
func (a *authority) noteSilence(name string, fb Feedback, now time.Time, giveUp int) {
	switch {
	case fb.Status != 0:
		a.silent = 0
	case fb.Err != nil && !errors.Is(fb.Err, context.Canceled):
		if a.silent == 0 {
			a.silentSince = now
		}
		a.silent++
		if giveUp > 0 && a.silent >= giveUp && a.gone == nil {
			a.gone = &UnreachableError{Authority: name, Failures: a.silent, Since: a.silentSince, Last: now, LastErr: fb.Err.Error()}
		}
	}
}

// SetCrawlDelay records the Crawl-delay that authority's robots.txt asks of
// heed (0 when it asks none); heed's robots stage calls it after each fetch
// of robots.txt. The authority's interval becomes the larger of the floor
// and d, and applies from the previous start and release on.
//
// If d is above the cap ([WithMaxCrawlDelay]) SetCrawlDelay returns a
// [*DelayTooLongError] and the authority is excluded until a later call
// within the cap. A negative d is an error and changes nothing. ctx is
// not consulted, as in TryAcquire.
func (p *Pacer) SetCrawlDelay(ctx context.Context, authority string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("politeness: negative crawl-delay %v for %s", d, authority)
	}
	a := p.get(authority)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.setCrawlDelay(authority, d, &p.cfg)
	a.signal()
	if a.tooLong != nil {
		return a.tooLong
	}
	return nil
}

// setCrawlDelay sets the Crawl-delay with its exclusion and interval; a.mu
// must be held.
func (a *authority) setCrawlDelay(name string, d time.Duration, cfg *Settings) {
	a.crawlDelay = d
	switch {
	case d <= cfg.MaxCrawlDelay:
		a.tooLong = nil
	case a.tooLong == nil || a.tooLong.Delay != d:
		a.tooLong = &DelayTooLongError{Authority: name, Delay: d, Cap: cfg.MaxCrawlDelay}
	}
	a.setInterval(max(cfg.intervalFor(d), a.throttleDelay))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

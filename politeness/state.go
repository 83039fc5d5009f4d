package politeness

import (
	"errors"
	"fmt"
	"time"
)

// AuthorityState is the pacing of one authority at one moment, for stats
// and for saving a crawl's pacing across a restart ([Pacer.Snapshot],
// [Pacer.Restore]). It is plain data.
type AuthorityState struct {
	// Interval is the spacing in force: the larger of the floor and
	// CrawlDelay (the floor alone while Excluded), and of ThrottleDelay
	// with AutoThrottle on.
	Interval time.Duration `json:"interval"`
	// CrawlDelay is the Crawl-delay last set by SetCrawlDelay.
	CrawlDelay time.Duration `json:"crawl_delay,omitempty"`
	// Excluded says CrawlDelay is above the cap, so the authority's
	// requests are refused with a DelayTooLongError.
	Excluded bool `json:"excluded,omitempty"`
	// PausedUntil is when a Retry-After or backoff pause ends; no pause
	// when it is not after now.
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// PausedByRetryAfter says that pause was asked by a Retry-After header
	// of a 429 or 503 answer; false for a backoff pause.
	PausedByRetryAfter bool `json:"paused_by_retry_after,omitempty"`
	// Backoff is the last backoff pause; 0 once a request has succeeded.
	Backoff time.Duration `json:"backoff,omitempty"`
	// Failures counts consecutive failures (5xx, 429 without Retry-After,
	// network errors); Backoff grows with it.
	Failures int `json:"failures,omitempty"`
	// InFlight counts requests booked and not yet released.
	InFlight int `json:"in_flight,omitempty"`
	// ThrottleDelay is AutoThrottle's delay for the authority (see
	// [AutoThrottle]); 0 without AutoThrottle. Interval is at least it.
	ThrottleDelay time.Duration `json:"throttle_delay,omitempty"`
	// LastStart is when the latest request was booked.
	LastStart time.Time `json:"last_start,omitzero"`
	// LastRelease is when the latest request was released.
	LastRelease time.Time `json:"last_release,omitzero"`
}

// state copies a's pacing; a.mu must be held.
func (a *authority) state() AuthorityState {
	return AuthorityState{
		Interval:           a.interval,
		CrawlDelay:         a.crawlDelay,
		Excluded:           a.tooLong != nil,
		PausedUntil:        a.pausedUntil,
		PausedByRetryAfter: a.byRetryAfter,
		Backoff:            a.backoff,
		Failures:           a.failures,
		InFlight:           a.inFlight,
		ThrottleDelay:      a.throttleDelay,
		LastStart:          a.lastStart,
		LastRelease:        a.lastRelease,
	}
}

// State returns the pacing of authority. For an authority never seen it
// returns the state a first request would meet: the floor as Interval (or
// AutoThrottle's start delay, if larger) and nothing else.
func (p *Pacer) State(authority string) AuthorityState {
	a := p.lookup(authority)
	if a == nil {
		s := AuthorityState{Interval: p.cfg.Floor}
		if at := p.cfg.AutoThrottle; at != nil {
			s.ThrottleDelay = at.start(p.cfg.Floor)
			s.Interval = s.ThrottleDelay
		}
		return s
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state()
}

// Len returns the number of authorities the Pacer holds state for.
func (p *Pacer) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.auth)
}

// Snapshot returns the pacing of every authority seen. Each authority's
// state is consistent in itself; the snapshot as a whole is not one instant
// if requests are being paced meanwhile.
func (p *Pacer) Snapshot() map[string]AuthorityState {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make(map[string]AuthorityState, len(p.auth))
	for name, a := range p.auth {
		a.mu.Lock()
		out[name] = a.state()
		a.mu.Unlock()
	}
	return out
}

// Restore loads pacing saved by Snapshot, typically into a new Pacer before
// a resumed crawl starts, so that hosts paced a moment ago are not hit in a
// burst. For each authority it restores the Crawl-delay (and so the
// exclusion, judged by this Pacer's cap), the pause, the backoff and the
// last start and release; Interval and Excluded are recomputed with this
// Pacer's settings rather than read.
//
// Requests in flight when the snapshot was taken are treated as released
// now, at Restore, because nobody knows when they really ended. InFlight is
// not restored: those requests belong to the previous process. For an
// authority this Pacer already paces, times are merged by keeping the later
// one, so Restore never makes pacing less strict.
//
// An entry with a negative duration or count is not restored; the error
// names every such entry, and the other entries are restored.
func (p *Pacer) Restore(states map[string]AuthorityState) error {
	now := p.cfg.Clock.Now()
	var errs []error
	for name, s := range states {
		if err := s.validate(); err != nil {
			errs = append(errs, fmt.Errorf("politeness: restore %s: %w", name, err))
			continue
		}
		a := p.get(name)
		a.mu.Lock()
		a.pause(s.PausedUntil, s.PausedByRetryAfter)
		if !a.idle(now) {
			p.busy.add(name, a)
		}
		a.backoff, a.failures = s.Backoff, s.Failures
		a.lastStart = later(a.lastStart, s.LastStart)
		a.lastRelease = later(a.lastRelease, s.LastRelease)
		if s.InFlight > 0 {
			a.lastRelease = later(a.lastRelease, now)
		}
		if p.cfg.AutoThrottle != nil {
			a.throttleDelay = max(a.throttleDelay, min(s.ThrottleDelay, p.cfg.AutoThrottle.MaxDelay))
		}
		a.setCrawlDelay(name, s.CrawlDelay, &p.cfg)
		a.resetLimiter() // replay the merged last start
		a.signal()
		a.mu.Unlock()
	}
	return errors.Join(errs...)
}

func (s *AuthorityState) validate() error {
	switch {
	case s.CrawlDelay < 0:
		return fmt.Errorf("negative crawl-delay %v", s.CrawlDelay)
	case s.Backoff < 0:
		return fmt.Errorf("negative backoff %v", s.Backoff)
	case s.Failures < 0:
		return fmt.Errorf("negative failure count %d", s.Failures)
	case s.ThrottleDelay < 0:
		return fmt.Errorf("negative throttle delay %v", s.ThrottleDelay)
	case s.InFlight < 0:
		return fmt.Errorf("negative in-flight count %d", s.InFlight)
	}
	return nil
}

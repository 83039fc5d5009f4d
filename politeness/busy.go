package politeness

import (
	"sync"
	"time"
)

// A live view of a crawl asks, twice a second, which authorities are
// busy: a request in flight or a pause in force. Those are a few (at
// most the requests in flight plus the authorities paused) among the
// many a long crawl has seen, so the Pacer indexes them as they become
// busy instead of copying every authority's state to find them.

// busySet is the index of authorities that may be busy. An authority
// joins it, with its a.mu held, when a start is booked or a pause set;
// it leaves when found idle, with its a.mu held too (a.mu before mu), so
// that no authority that is busy is ever out of the set.
type busySet struct {
	mu sync.Mutex
	m  map[string]*authority
}

// add puts a in the set; a.mu must be held.
func (b *busySet) add(name string, a *authority) {
	b.mu.Lock()
	if b.m == nil {
		b.m = make(map[string]*authority)
	}
	b.m[name] = a
	b.mu.Unlock()
}

// idle reports whether a has nothing in flight and no pause after now;
// a.mu must be held.
func (a *authority) idle(now time.Time) bool {
	return a.inFlight == 0 && !a.pausedUntil.After(now)
}

// dropIfIdle takes a out of the set when it is idle at now; a.mu must be
// held.
func (b *busySet) dropIfIdle(name string, a *authority, now time.Time) bool {
	if !a.idle(now) {
		return false
	}
	b.mu.Lock()
	if b.m[name] == a {
		delete(b.m, name)
	}
	b.mu.Unlock()
	return true
}

// Busy returns the state of every authority that has a request in flight
// or a pause that ends after now on the Pacer's clock: the same states
// Snapshot would give for them, in time proportional to the busy
// authorities rather than to all those seen. Each state is consistent in
// itself; the set is not one atomic cut.
func (p *Pacer) Busy() map[string]AuthorityState {
	p.busy.mu.Lock()
	names := make([]string, 0, len(p.busy.m))
	auths := make([]*authority, 0, len(p.busy.m))
	for name, a := range p.busy.m {
		names, auths = append(names, name), append(auths, a)
	}
	p.busy.mu.Unlock()
	now := p.cfg.Clock.Now()
	out := make(map[string]AuthorityState, len(names))
	for i, a := range auths {
		a.mu.Lock()
		if !p.busy.dropIfIdle(names[i], a, now) {
			out[names[i]] = a.state()
		}
		a.mu.Unlock()
	}
	return out
}

package politeness

import "time"

// startRing holds an authority's latest request starts, oldest first from
// next when full.
type startRing struct {
	t    []time.Time
	next int
	full bool
}

// logStart records a booked start when the Pacer keeps a start log of n;
// a.mu must be held.
func (a *authority) logStart(now time.Time, n int) {
	if n <= 0 {
		return
	}
	if a.starts == nil {
		a.starts = &startRing{t: make([]time.Time, n)}
	}
	r := a.starts
	r.t[r.next] = now
	r.next++
	if r.next == len(r.t) {
		r.next, r.full = 0, true
	}
}

// list copies the starts, oldest first.
func (r *startRing) list() []time.Time {
	if r == nil {
		return nil
	}
	if !r.full {
		return append([]time.Time(nil), r.t[:r.next]...)
	}
	out := make([]time.Time, 0, len(r.t))
	out = append(out, r.t[r.next:]...)
	return append(out, r.t[:r.next]...)
}

// Starts returns the latest request starts booked for authority (by
// TryAcquire or Wait), oldest first: at most the start log's size
// ([WithStartLog]), none without a start log. The times are the Pacer's
// clock's, so consecutive ones are at least the interval in force apart.
func (p *Pacer) Starts(authority string) []time.Time {
	a := p.lookup(authority)
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.starts.list()
}

// RecentStarts returns [Pacer.Starts] for every authority that has started
// a request since the Pacer began keeping a start log; nil without one.
// Like Snapshot, each authority's list is consistent in itself.
func (p *Pacer) RecentStarts() map[string][]time.Time {
	if p.cfg.StartLog <= 0 {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make(map[string][]time.Time, len(p.auth))
	for name, a := range p.auth {
		a.mu.Lock()
		if a.starts != nil {
			out[name] = a.starts.list()
		}
		a.mu.Unlock()
	}
	return out
}

// Package live is the read-only view of a running crawl that dashboards
// read: the queue per authority, the pacing of each authority, the
// latest request starts, and the count of authorities by what they are
// doing (Hosts), for heed's progress line (package cli) and live page
// (package ui).
//
// The model: a View reads four small interfaces, each the part of the
// crawl it shows (Queue: the frontier's counts; Pacer: the pacing kept in
// this process; StartLog: the latest starts; Robots: which authorities
// wait for their robots.txt), and keeps nothing of its own. heed's
// crawler builds one per run (crawler.Crawler.Live); a test or another
// engine builds one with New from its own parts.
//
// The contract: every method is safe for concurrent use, changes
// nothing, and costs the crawl one lock of the part it reads for as long
// as the copy takes. Hosts asks the pacer only for its busy authorities
// (politeness.Pacer.Busy: those in flight or paused), so the pacing part
// of a call costs time in proportion to those, not to every authority
// the crawl has seen; the queue part is the frontier's Stats, a copy of
// its counts per queued authority.
//
// The limits: a crawl whose pacing is kept elsewhere (package fleet's,
// in Redis) has no Pacer here: Pacing, ReadyAt and Starts are then empty
// and Hosts cannot tell an active or paused authority from a waiting
// one (Hosts.Paced says so). The parts are read one after the other, so
// a View's answers are each consistent in themselves, not one atomic cut
// of the crawl.
package live

import (
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/politeness"
)

// Queue is what a View reads of the frontier.
type Queue interface {
	Stats() frontier.Stats
}

// Pacer is what a View reads of a pacer that keeps its state in this
// process (*politeness.Pacer).
type Pacer interface {
	// Snapshot returns the pacing of every authority seen.
	Snapshot() map[string]politeness.AuthorityState
	// Busy returns the pacing of the authorities with a request in
	// flight or a pause in force.
	Busy() map[string]politeness.AuthorityState
	// ReadyAt returns the earliest time a request to authority may start.
	ReadyAt(authority string) time.Time
}

// StartLog is what a View reads of the latest request starts.
type StartLog interface {
	// RecentStarts returns the latest starts per authority, oldest
	// first; nil when none are kept.
	RecentStarts() map[string][]time.Time
}

// Robots is what a View reads of the robots stage.
type Robots interface {
	// Waiting reports whether authority's URLs wait for its robots.txt.
	Waiting(authority string) bool
}

// View is a read-only view of a running crawl's queue and pacing; the
// counts are in package stats. Make one with New.
type View struct {
	queue  Queue
	pacer  Pacer    // nil for a pacer that keeps its state elsewhere
	starts StartLog // nil without a start log
	robots Robots   // nil: no authority waits for its robots.txt
}

// New returns the view of the crawl whose parts these are. q is
// required; p, s and r may be nil for a crawl that has no such part
// in this process.
func New(q Queue, p Pacer, s StartLog, r Robots) *View {
	return &View{queue: q, pacer: p, starts: s, robots: r}
}

// Queue returns the frontier's counts, with the requests queued per
// authority.
func (v *View) Queue() frontier.Stats { return v.queue.Stats() }

// Pacing returns the pacing state of every authority seen; nil for a
// crawl whose pacing is kept elsewhere (in Redis, for a fleet).
func (v *View) Pacing() map[string]politeness.AuthorityState {
	if v.pacer == nil {
		return nil
	}
	return v.pacer.Snapshot()
}

// ReadyAt returns the earliest time a request to authority may start
// (politeness.Pacer.ReadyAt); the zero time for a crawl whose pacing is
// kept elsewhere.
func (v *View) ReadyAt(authority string) time.Time {
	if v.pacer == nil {
		return time.Time{}
	}
	return v.pacer.ReadyAt(authority)
}

// Starts returns the latest request starts per authority, oldest first,
// when the crawl keeps a start log (crawler.WithStartLog); nil
// otherwise.
func (v *View) Starts() map[string][]time.Time {
	if v.starts == nil {
		return nil
	}
	return v.starts.RecentStarts()
}

// Hosts counts a running crawl's authorities by what they are doing.
type Hosts struct {
	// Active authorities have a request in flight.
	Active int
	// Waiting authorities have URLs queued and nothing in flight: they
	// wait for their pace or a free worker.
	Waiting int
	// Paused authorities have URLs queued and are paused: by a 429 or 503
	// (Retry-After) or by the backoff after failures.
	Paused int
	// Robots authorities have URLs queued that wait for their robots.txt:
	// being fetched, or unreachable and retried.
	Robots int
	// Paced is false for a crawl whose pacing is kept in Redis: Active
	// and Paused are then not known, and Waiting counts them too.
	Paced bool
}

// Hosts counts the authorities with queued URLs or requests in flight,
// at now, each under one heading (Robots first, then Active, Paused,
// Waiting).
func (v *View) Hosts(now time.Time) Hosts {
	q := v.queue.Stats()
	var busy map[string]politeness.AuthorityState
	if v.pacer != nil {
		busy = v.pacer.Busy()
	}
	h := Hosts{Paced: v.pacer != nil}
	for _, ps := range busy {
		if ps.InFlight > 0 {
			h.Active++
		}
	}
	for a, n := range q.ByAuthority {
		if n == 0 || busy[a].InFlight > 0 {
			continue
		}
		switch {
		case v.robots != nil && v.robots.Waiting(a):
			h.Robots++
		case busy[a].PausedUntil.After(now):
			h.Paused++
		default:
			h.Waiting++
		}
	}
	return h
}

// Package sched schedules the authorities of an in-process frontier: which
// authority's request Next hands out, and when a blocked Next wakes up. It
// serves both frontier.Memory and durable.Frontier, which keep their queues
// in different places (in memory; on disk behind a read-ahead) but must
// choose among authorities and wake their callers the same way; with one
// scheduler they do so by construction.
//
// It owns, per authority, the lease count, the hold a Retry sets, the
// round-robin turn and the place in one of two heaps: the ready heap, of
// authorities that may be served now, best head request first; and the
// waiting heap, of authorities on hold or told to wait by the Gate, by the
// time they become ready. The Gate is asked when an authority reaches the
// top of the ready heap, and again when its time comes, since the answer
// may have moved later meanwhile. It also owns the blocked Next calls and
// the one timer that stands in for all their sleeps.
//
// It does not own the queues, the lease records, the seen set or the
// counts: the frontier does, and tells the scheduler when an authority's
// queue or leases change. Every method is called with the frontier's lock
// (Params.Lock) held.
package sched

import (
	"sync"
	"time"
)

// Gate says when an authority may next be served: frontier.Gate.
type Gate interface {
	ReadyAt(authority string) time.Time
}

// Slot is one authority's scheduling state. A frontier's authority type
// embeds a Slot, which makes a pointer to it an Entry.
type Slot struct {
	// Name is the authority, as the Gate knows it.
	Name string
	// Leased counts the authority's requests handed out and not yet Done
	// or Retried. Served adds one; Release and Requeue take one away.
	Leased int
	// Hold is when the authority may next be served, from Retry (zero:
	// no hold). Requeue moves it later; Served clears it.
	Hold time.Time

	at   time.Time // when it is next ready, while in the waiting heap
	turn uint64    // last time served, for round-robin among equals

	// The head request's priority and depth, kept here so that ordering
	// the ready heap does not chase a pointer per comparison.
	headPriority, headDepth int

	readyPos, waitPos int // 1 + index in the ready and waiting heaps; 0: absent
}

func (s *Slot) slot() *Slot { return s }

// SetHead records the priority and depth of the authority's head request,
// by which the ready heap orders it. Call it whenever the head changes,
// before the next call to the scheduler about the authority.
func (s *Slot) SetHead(priority, depth int) {
	s.headPriority, s.headDepth = priority, depth
}

// Entry is a frontier's authority: a pointer to a type that embeds a Slot.
type Entry interface {
	slot() *Slot
	// Queued returns how many requests the authority has queued.
	Queued() int
}

// Params is what a Scheduler needs from its frontier.
type Params struct {
	// Lock is the frontier's mutex. The wake-up timer takes it; every
	// other call is made with it held, and Next releases it.
	Lock sync.Locker
	// Gate is asked when an authority may next be served; nil: always.
	Gate Gate
	// Leases is the most requests of one authority leased at once.
	Leases int
	// DepthFirst ranks deeper head requests first (frontier.DepthFirst);
	// otherwise shallower ones are.
	DepthFirst bool
	// Now and AfterFunc are the frontier's clock and timer
	// (frontier.Config's).
	Now       func() time.Time
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Usable returns the error a call to Next returns at once: the
	// frontier is closed or broken. Nil: Next may go on.
	Usable func() error
	// Exhausted reports whether nothing is queued, leased or being
	// admitted; then Next returns ErrExhausted and wakes every waiter.
	Exhausted    func() bool
	ErrExhausted error
}

// Scheduler is the scheduling state of one frontier. It is not safe for
// concurrent use on its own: the frontier's lock guards it.
type Scheduler[A Entry] struct {
	p       Params
	ready   heap[A]
	waiting heap[A]
	turn    uint64 // last round-robin turn given out
	closed  bool
	wait    waitState
}

// New returns a Scheduler with no authorities.
func New[A Entry](p Params) *Scheduler[A] {
	return &Scheduler[A]{
		p:       p,
		ready:   heap[A]{depthFirst: p.DepthFirst},
		waiting: heap[A]{byTime: true},
	}
}

// Join gives an authority the frontier has just come to know its
// round-robin turn: among equals, it is served after those known before.
func (s *Scheduler[A]) Join(a A) {
	s.turn++
	a.slot().turn = s.turn
}

// Add schedules a after requests were added to its queue: a new head
// moves it in the ready heap, and an authority in neither heap is placed.
func (s *Scheduler[A]) Add(a A) {
	if sl := a.slot(); s.ready.has(sl) {
		s.ready.fix(sl)
	} else if !s.waiting.has(sl) {
		s.place(a)
	}
}

// place puts an authority that is in neither heap into the one it belongs
// to, if any: it needs a queued request and a free lease, and waits while
// its hold lasts. The Gate is asked only when the authority reaches the top
// of the ready heap.
func (s *Scheduler[A]) place(a A) {
	sl := a.slot()
	if a.Queued() == 0 || sl.Leased >= s.p.Leases {
		return
	}
	if !sl.Hold.IsZero() {
		if sl.Hold.After(s.p.Now()) {
			sl.at = sl.Hold
			s.waiting.push(sl, a)
			return
		}
		sl.Hold = time.Time{}
	}
	s.ready.push(sl, a)
}

// Take returns the best authority that may be served now, or false. It
// moves the authorities whose waiting time has come to the ready heap, and
// asks the Gate about the top of the ready heap, sending it to wait if the
// answer is later than now, until the top may be served. The caller hands
// out the authority's head request and calls Served.
func (s *Scheduler[A]) Take() (a A, ok bool) {
	if s.ready.len() == 0 && s.waiting.len() == 0 {
		return a, false
	}
	now := s.p.Now()
	for s.waiting.len() > 0 {
		top := s.waiting.items[0]
		if top.s.at.After(now) {
			break
		}
		s.waiting.remove(top.s)
		s.ready.push(top.s, top.a) // the Gate is asked below, at the top
	}
	for s.ready.len() > 0 {
		top := s.ready.items[0]
		if t := s.readyAt(top.s); t.After(now) {
			s.ready.remove(top.s)
			top.s.at = t
			s.waiting.push(top.s, top.a)
			continue
		}
		return top.a, true
	}
	return a, false
}

// readyAt returns when an authority may next be served: its hold or its
// Gate time, whichever is later.
func (s *Scheduler[A]) readyAt(sl *Slot) time.Time {
	t := sl.Hold
	if s.p.Gate != nil {
		if g := s.p.Gate.ReadyAt(sl.Name); g.After(t) {
			t = g
		}
	}
	return t
}

// Served records that the head request of a, returned by Take, was handed
// out (the queue and the head already changed): its hold ends, it holds one
// more lease, it has had its turn, and it stays ready only with a request
// queued and a lease free.
func (s *Scheduler[A]) Served(a A) {
	sl := a.slot()
	sl.Hold = time.Time{}
	sl.Leased++
	s.turn++
	sl.turn = s.turn
	if a.Queued() > 0 && sl.Leased < s.p.Leases {
		s.ready.fix(sl)
	} else {
		s.ready.remove(sl)
	}
}

// Release records that a lease of a ended without its request coming back
// (Done), schedules a again and wakes waiters. It reports whether a has
// nothing queued or leased: the frontier then forgets it.
func (s *Scheduler[A]) Release(a A) (idle bool) {
	sl := a.slot()
	sl.Leased--
	idle = a.Queued() == 0 && sl.Leased == 0
	if !idle && !s.ready.has(sl) && !s.waiting.has(sl) {
		s.place(a)
	}
	s.Wake()
	return idle
}

// Requeue records that a lease of a ended with its request put back at the
// head of a's queue (Retry), holds a until notBefore if that is later than
// its hold, schedules a again and wakes waiters.
func (s *Scheduler[A]) Requeue(a A, notBefore time.Time) {
	sl := a.slot()
	if notBefore.After(sl.Hold) {
		sl.Hold = notBefore
	}
	s.Remove(a)
	s.Release(a)
}

// Remove takes a out of both heaps, as when its queue was drained; Add
// puts it back.
func (s *Scheduler[A]) Remove(a A) {
	sl := a.slot()
	s.ready.remove(sl)
	s.waiting.remove(sl)
}

// Len returns how many authorities are in the ready and the waiting heap
// and how many Next calls wait unsignalled: for tests.
func (s *Scheduler[A]) Len() (ready, waiting, waiters int) {
	for w := s.wait.list.head; w != nil; w = w.next {
		waiters++
	}
	return s.ready.len(), s.waiting.len(), waiters
}

// NextReady returns when the earliest waiting authority becomes ready, or
// false if none waits: for tests.
func (s *Scheduler[A]) NextReady() (time.Time, bool) {
	if s.waiting.len() == 0 {
		return time.Time{}, false
	}
	return s.waiting.items[0].s.at, true
}

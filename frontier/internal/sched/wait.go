package sched

import (
	"context"
	"time"
)

// Blocked Next calls wait in a FIFO list, each on its own channel. Rather
// than waking every waiter on every change (a thundering herd: a page's
// hundred links would wake every idle worker a hundred times), the
// scheduler signals as many waiters as there are ready authorities, each
// woken waiter that takes a request passes the word on, and one timer,
// armed for the earliest waiting authority, stands in for all the waiters'
// sleeps.

// waiter is one blocked Next call.
type waiter struct {
	ch         chan struct{} // capacity 1: one signal per time listed
	prev, next *waiter
	listed     bool
}

// waitList is an intrusive FIFO list of waiters.
type waitList struct {
	head, tail *waiter
}

func (l *waitList) empty() bool { return l.head == nil }

func (l *waitList) pushBack(w *waiter) {
	w.prev, w.next, w.listed = l.tail, nil, true
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
}

func (l *waitList) remove(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.prev, w.next, w.listed = nil, nil, false
}

// waitState is the waiters and the wake-up timer of a Scheduler.
type waitState struct {
	list      waitList
	signalled int // waiters signalled that have not yet re-taken the lock

	timerStop func() bool // nil when no timer is armed
	timerAt   time.Time
	timerGen  uint64 // tells a stale timer's callback from the current one's
}

// Next is the body of a frontier's Next. It is called with the lock held
// and returns with it released. Each round it returns Usable's error, ctx's
// error, take's error, nil once take reports that it handed out a request,
// or ErrExhausted; otherwise it waits until it is signalled and goes round
// again. take is called with the lock held; it uses Take and Served.
func (s *Scheduler[A]) Next(ctx context.Context, take func() (bool, error)) error {
	var w *waiter
	for {
		if err := s.p.Usable(); err != nil {
			s.p.Lock.Unlock()
			return err
		}
		if err := ctx.Err(); err != nil {
			s.Kick() // in case this waiter was signalled: pass it on
			s.p.Lock.Unlock()
			return err
		}
		ok, err := take()
		if err != nil {
			s.p.Lock.Unlock()
			return err
		}
		if ok {
			// Pass the word on if more is ready than waiters were told.
			s.Kick()
			s.p.Lock.Unlock()
			return nil
		}
		if s.p.Exhausted() {
			s.Broadcast()
			s.p.Lock.Unlock()
			return s.p.ErrExhausted
		}
		if w == nil {
			w = &waiter{ch: make(chan struct{}, 1)}
		}
		s.wait.list.pushBack(w)
		s.Kick() // arms the timer for the earliest waiting authority
		s.p.Lock.Unlock()

		select {
		case <-w.ch:
			s.p.Lock.Lock()
			s.wait.signalled--
		case <-ctx.Done():
			s.p.Lock.Lock()
			if w.listed {
				s.wait.list.remove(w)
			} else {
				// Signalled and leaving: hand the signal to another waiter.
				s.wait.signalled--
				s.Kick()
			}
			s.p.Lock.Unlock()
			return ctx.Err()
		}
	}
}

// signalOne wakes the longest-waiting waiter.
func (s *Scheduler[A]) signalOne() {
	w := s.wait.list.head
	s.wait.list.remove(w)
	s.wait.signalled++
	w.ch <- struct{}{}
}

// Broadcast wakes every waiter: the frontier is exhausted, closed or
// broken.
func (s *Scheduler[A]) Broadcast() {
	for !s.wait.list.empty() {
		s.signalOne()
	}
}

// Wake wakes every waiter if the frontier is exhausted, and otherwise
// those for whom a request may be ready (Kick).
func (s *Scheduler[A]) Wake() {
	if s.p.Exhausted() {
		s.Broadcast()
		return
	}
	s.Kick()
}

// Kick wakes waiters for the requests that may be ready now, and arms the
// timer for the earliest authority that is not.
func (s *Scheduler[A]) Kick() {
	if s.wait.list.empty() {
		return
	}
	avail := s.ready.len()
	var now time.Time
	future := false
	if s.waiting.len() > 0 {
		now = s.p.Now()
		if s.waiting.items[0].s.at.After(now) {
			future = true
		} else {
			avail++ // and maybe more: the waiter that takes it passes on
		}
	}
	for s.wait.signalled < avail && !s.wait.list.empty() {
		s.signalOne()
	}
	if future && !s.wait.list.empty() {
		s.armTimer(s.waiting.items[0].s.at, now)
	}
}

// armTimer makes sure the timer fires no later than at.
func (s *Scheduler[A]) armTimer(at, now time.Time) {
	if s.wait.timerStop != nil {
		if !at.Before(s.wait.timerAt) {
			return
		}
		s.wait.timerStop()
	}
	s.wait.timerGen++
	gen := s.wait.timerGen
	s.wait.timerAt = at
	s.wait.timerStop = s.p.AfterFunc(at.Sub(now), func() { s.timerFired(gen) })
}

func (s *Scheduler[A]) timerFired(gen uint64) {
	s.p.Lock.Lock()
	defer s.p.Lock.Unlock()
	if gen != s.wait.timerGen || s.closed {
		return
	}
	s.wait.timerStop = nil
	s.Kick()
}

// Close stops the timer and wakes every waiter, for good: the frontier is
// closed, and its Usable says so.
func (s *Scheduler[A]) Close() {
	s.closed = true
	if s.wait.timerStop != nil {
		s.wait.timerStop()
		s.wait.timerStop = nil
	}
	s.wait.timerGen++
	s.Broadcast()
}

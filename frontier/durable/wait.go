package durable

import "time"

// The waiting scheme is frontier.Memory's (frontier/wait.go), kept alike so
// that both frontiers wake their callers the same way.
//
// Blocked Next calls wait in a FIFO list, each on its own channel. Rather
// than waking every waiter on every change (a thundering herd: a page's
// hundred links would wake every idle worker a hundred times), the frontier
// signals as many waiters as there are ready authorities, each woken waiter
// that takes a request passes the word on, and one timer, armed for the
// earliest waiting authority, stands in for all the waiters' sleeps.

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

// waitState is the waiters and the wake-up timer of a Frontier.
type waitState struct {
	list      waitList
	signalled int // waiters signalled that have not yet re-taken the lock

	timerStop func() bool // nil when no timer is armed
	timerAt   time.Time
	timerGen  uint64 // tells a stale timer's callback from the current one's
}

// signalOne wakes the longest-waiting waiter. f.mu is held.
func (f *Frontier) signalOne() {
	w := f.wait.list.head
	f.wait.list.remove(w)
	f.wait.signalled++
	w.ch <- struct{}{}
}

// broadcast wakes every waiter: the frontier is exhausted or closed.
func (f *Frontier) broadcast() {
	for !f.wait.list.empty() {
		f.signalOne()
	}
}

// kick wakes waiters for the requests that may be ready now, and arms the
// timer for the earliest authority that is not. f.mu is held.
func (f *Frontier) kick() {
	if f.wait.list.empty() {
		return
	}
	avail := f.ready.len()
	var now time.Time
	future := false
	if f.waiting.len() > 0 {
		now = f.cfg.Now()
		if f.waiting.top().at.After(now) {
			future = true
		} else {
			avail++ // and maybe more: the waiter that takes it passes on
		}
	}
	for f.wait.signalled < avail && !f.wait.list.empty() {
		f.signalOne()
	}
	if future && !f.wait.list.empty() {
		f.armTimer(f.waiting.top().at, now)
	}
}

// armTimer makes sure the timer fires no later than at.
func (f *Frontier) armTimer(at, now time.Time) {
	if f.wait.timerStop != nil {
		if !at.Before(f.wait.timerAt) {
			return
		}
		f.wait.timerStop()
	}
	f.wait.timerGen++
	gen := f.wait.timerGen
	f.wait.timerAt = at
	f.wait.timerStop = f.cfg.AfterFunc(at.Sub(now), func() { f.timerFired(gen) })
}

func (f *Frontier) timerFired(gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if gen != f.wait.timerGen || f.closed {
		return
	}
	f.wait.timerStop = nil
	f.kick()
}

func (f *Frontier) stopTimer() {
	if f.wait.timerStop != nil {
		f.wait.timerStop()
		f.wait.timerStop = nil
	}
	f.wait.timerGen++
}

package frontier

import "time"

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

// waitState is the waiters and the wake-up timer of a Memory.
type waitState struct {
	list      waitList
	signalled int // waiters signalled that have not yet re-taken the lock

	timerStop func() bool // nil when no timer is armed
	timerAt   time.Time
	timerGen  uint64 // tells a stale timer's callback from the current one's
}

// signalOne wakes the longest-waiting waiter. m.mu is held.
func (m *Memory) signalOne() {
	w := m.wait.list.head
	m.wait.list.remove(w)
	m.wait.signalled++
	w.ch <- struct{}{}
}

// broadcast wakes every waiter: the frontier is exhausted or closed.
func (m *Memory) broadcast() {
	for !m.wait.list.empty() {
		m.signalOne()
	}
}

// kick wakes waiters for the requests that may be ready now, and arms the
// timer for the earliest authority that is not. m.mu is held.
func (m *Memory) kick() {
	if m.wait.list.empty() {
		return
	}
	avail := m.ready.len()
	var now time.Time
	future := false
	if m.waiting.len() > 0 {
		now = m.cfg.Now()
		if m.waiting.top().at.After(now) {
			future = true
		} else {
			avail++ // and maybe more: the waiter that takes it passes on
		}
	}
	for m.wait.signalled < avail && !m.wait.list.empty() {
		m.signalOne()
	}
	if future && !m.wait.list.empty() {
		m.armTimer(m.waiting.top().at, now)
	}
}

// armTimer makes sure the timer fires no later than at.
func (m *Memory) armTimer(at, now time.Time) {
	if m.wait.timerStop != nil {
		if !at.Before(m.wait.timerAt) {
			return
		}
		m.wait.timerStop()
	}
	m.wait.timerGen++
	gen := m.wait.timerGen
	m.wait.timerAt = at
	m.wait.timerStop = m.cfg.AfterFunc(at.Sub(now), func() { m.timerFired(gen) })
}

func (m *Memory) timerFired(gen uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen != m.wait.timerGen || m.closed {
		return
	}
	m.wait.timerStop = nil
	m.kick()
}

func (m *Memory) stopTimer() {
	if m.wait.timerStop != nil {
		m.wait.timerStop()
		m.wait.timerStop = nil
	}
	m.wait.timerGen++
}

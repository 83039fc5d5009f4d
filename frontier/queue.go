package frontier

import "github.com/heedcrawl/heed/frontier/internal/sched"

// authority is one authority's queue in a Memory, and its scheduling
// state, which it shares with the durable frontier's (see package sched).
type authority struct {
	sched.Slot
	front []*Request // retried requests; the last one is the head
	queue []*Request // binary heap ordered by Config.Order
}

// Queued returns how many requests a has queued.
func (a *authority) Queued() int { return len(a.front) + len(a.queue) }

func (a *authority) head() *Request {
	if n := len(a.front); n > 0 {
		return a.front[n-1]
	}
	return a.queue[0]
}

// noteHead caches the head's key; call it after every change of the queue.
func (a *authority) noteHead() {
	if a.Queued() > 0 {
		h := a.head()
		a.SetHead(h.Priority, h.Depth)
	}
}

// pushFront puts r at the head, before every queued request.
func (a *authority) pushFront(r *Request) {
	a.front = append(a.front, r)
	a.noteHead()
}

func (a *authority) push(r *Request, o Order) {
	q := append(a.queue, r)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !o.Less(q[i], q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	a.queue = q
	a.noteHead()
}

func (a *authority) pop(o Order) *Request {
	if n := len(a.front); n > 0 {
		r := a.front[n-1]
		a.front[n-1] = nil
		a.front = a.front[:n-1]
		if n == 1 {
			a.front = nil
		}
		a.noteHead()
		return r
	}
	q := a.queue
	r := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = nil
	q = q[:n]
	if n == 0 {
		// Let a long queue's array go once it is empty.
		a.queue = nil
		return r
	}
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if rr := l + 1; rr < n && o.Less(q[rr], q[l]) {
			m = rr
		}
		if !o.Less(q[m], q[i]) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	a.queue = q
	a.noteHead()
	return r
}

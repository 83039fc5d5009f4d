package frontier

import "time"

// authority is one authority's queue and scheduling state in a Memory.
type authority struct {
	name  string
	front []*Request // retried requests; the last one is the head
	queue []*Request // binary heap ordered by Config.Order

	leased int       // requests handed out and not yet Done or Retried
	hold   time.Time // not handed out before (from Retry)
	at     time.Time // when it is next ready, while in the waiting heap
	turn   uint64    // last time served, for round-robin among equals

	// The head request's priority and depth, kept here so that ordering
	// the ready heap does not chase a pointer per comparison.
	headPriority, headDepth int

	readyPos, waitPos int // 1 + index in the ready and waiting heaps; 0: absent
}

func (a *authority) queued() int { return len(a.front) + len(a.queue) }

func (a *authority) head() *Request {
	if n := len(a.front); n > 0 {
		return a.front[n-1]
	}
	return a.queue[0]
}

// noteHead caches the head's key; call it after every change of the queue.
func (a *authority) noteHead() {
	if a.queued() > 0 {
		h := a.head()
		a.headPriority, a.headDepth = h.Priority, h.Depth
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

// authHeap is a binary heap of authorities that knows each one's position,
// so that an authority whose head changed can be fixed or removed in
// O(log n). The ready heap orders by head request, the waiting heap by time.
type authHeap struct {
	items  []*authority
	byTime bool // the waiting heap
	order  Order
}

func (h *authHeap) len() int              { return len(h.items) }
func (h *authHeap) top() *authority       { return h.items[0] }
func (h *authHeap) has(a *authority) bool { return *h.pos(a) != 0 }

func (h *authHeap) pos(a *authority) *int {
	if h.byTime {
		return &a.waitPos
	}
	return &a.readyPos
}

// less orders the ready heap by the head requests' priority and depth, and
// authorities whose heads tie by when they were last served (round-robin);
// the waiting heap by ready time.
func (h *authHeap) less(a, b *authority) bool {
	if h.byTime {
		return a.at.Before(b.at)
	}
	if a.headPriority != b.headPriority {
		return a.headPriority > b.headPriority
	}
	if a.headDepth != b.headDepth {
		if h.order == DepthFirst {
			return a.headDepth > b.headDepth
		}
		return a.headDepth < b.headDepth
	}
	return a.turn < b.turn
}

func (h *authHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*h.pos(h.items[i]) = i + 1
	*h.pos(h.items[j]) = j + 1
}

func (h *authHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *authHeap) down(i int) bool {
	start := i
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			m = r
		}
		if !h.less(h.items[m], h.items[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

func (h *authHeap) push(a *authority) {
	h.items = append(h.items, a)
	*h.pos(a) = len(h.items)
	h.up(len(h.items) - 1)
}

// remove takes a out of the heap; it does nothing if a is not in it.
func (h *authHeap) remove(a *authority) {
	p := h.pos(a)
	if *p == 0 {
		return
	}
	i := *p - 1
	n := len(h.items) - 1
	if i != n {
		h.swap(i, n)
	}
	h.items[n] = nil
	h.items = h.items[:n]
	*p = 0
	if i != n {
		h.fixAt(i)
	}
}

// fix restores the heap after a's key changed.
func (h *authHeap) fix(a *authority) {
	if p := *h.pos(a); p != 0 {
		h.fixAt(p - 1)
	}
}

func (h *authHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

package sched

// heap is a binary heap of authorities that knows each one's position, so
// that an authority whose head changed can be fixed or removed in
// O(log n). The ready heap orders by head request, the waiting heap by
// time. An item carries the authority's Slot, which the heap reads and
// writes, beside the authority itself, which Take hands back.
type heap[A any] struct {
	items      []item[A]
	byTime     bool // the waiting heap
	depthFirst bool
}

type item[A any] struct {
	s *Slot
	a A
}

func (h *heap[A]) len() int         { return len(h.items) }
func (h *heap[A]) has(s *Slot) bool { return *h.pos(s) != 0 }
func (h *heap[A]) pos(s *Slot) *int {
	if h.byTime {
		return &s.waitPos
	}
	return &s.readyPos
}

// less orders the ready heap by the head requests' priority and depth, and
// authorities whose heads tie by when they were last served (round-robin);
// the waiting heap by ready time.
func (h *heap[A]) less(a, b *Slot) bool {
	if h.byTime {
		return a.at.Before(b.at)
	}
	if a.headPriority != b.headPriority {
		return a.headPriority > b.headPriority
	}
	if a.headDepth != b.headDepth {
		if h.depthFirst {
			return a.headDepth > b.headDepth
		}
		return a.headDepth < b.headDepth
	}
	return a.turn < b.turn
}

func (h *heap[A]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*h.pos(h.items[i].s) = i + 1
	*h.pos(h.items[j].s) = j + 1
}

func (h *heap[A]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i].s, h.items[p].s) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *heap[A]) down(i int) bool {
	start := i
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(h.items[r].s, h.items[l].s) {
			m = r
		}
		if !h.less(h.items[m].s, h.items[i].s) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

func (h *heap[A]) push(s *Slot, a A) {
	h.items = append(h.items, item[A]{s, a})
	*h.pos(s) = len(h.items)
	h.up(len(h.items) - 1)
}

// remove takes s out of the heap; it does nothing if s is not in it.
func (h *heap[A]) remove(s *Slot) {
	p := h.pos(s)
	if *p == 0 {
		return
	}
	i := *p - 1
	n := len(h.items) - 1
	if i != n {
		h.swap(i, n)
	}
	h.items[n] = item[A]{}
	h.items = h.items[:n]
	*p = 0
	if i != n {
		h.fixAt(i)
	}
}

// fix restores the heap after s's key changed.
func (h *heap[A]) fix(s *Slot) {
	if p := *h.pos(s); p != 0 {
		h.fixAt(p - 1)
	}
}

func (h *heap[A]) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

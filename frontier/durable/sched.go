package durable

import (
	"bytes"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// authority is the part of an authority's state kept in memory: its
// counts, its hold, its place in the scheduling heaps, and a read-ahead of
// the first few entries of its queue. The queue itself is on disk.
type authority struct {
	id     uint32
	name   string
	queued int // entries in its queue on disk
	leased int // requests handed out and not yet Done or Retried

	// heads are the first len(heads) entries of the queue, in key order.
	// It is empty only when queued is 0; when it holds fewer than queued,
	// every entry on disk but not here has a larger key than its last.
	heads []entry
	// floor is the key of the last entry handed out, or a smaller key
	// queued since: no stored key is smaller, so a read of the queue may
	// start there instead of stepping over deleted entries.
	floor []byte

	hold time.Time // not handed out before (from Retry)
	at   time.Time // when it is next ready, while in the waiting heap
	turn uint64    // last time served, for round-robin among equals

	readyPos, waitPos int // 1 + index in the ready and waiting heaps; 0: absent
}

// entry is a queued request and its key.
type entry struct {
	key []byte
	req *frontier.Request
}

func (a *authority) record() authRecord {
	return authRecord{name: a.name, queued: a.queued, hold: a.hold}
}

// complete reports whether heads holds the whole queue.
func (a *authority) complete() bool { return len(a.heads) == a.queued }

// noteKey takes a new queue entry into the read-ahead if it belongs there:
// the read-ahead must stay the queue's first entries. limit caps its
// length. It is called before queued counts the entry.
func (a *authority) noteKey(e entry, limit int) {
	n := len(a.heads)
	if n > 0 && !a.complete() && bytes.Compare(e.key, a.heads[n-1].key) > 0 {
		return // somewhere after the read-ahead, on disk only
	}
	i := n
	for i > 0 && bytes.Compare(e.key, a.heads[i-1].key) < 0 {
		i--
	}
	if a.floor != nil && bytes.Compare(e.key, a.floor) < 0 {
		a.floor = e.key
	}
	if i >= limit {
		return
	}
	a.heads = append(a.heads, entry{})
	copy(a.heads[i+1:], a.heads[i:])
	a.heads[i] = e
	if len(a.heads) > limit {
		a.heads[len(a.heads)-1] = entry{}
		a.heads = a.heads[:len(a.heads)-1]
	}
}

// popHead removes the first entry of the read-ahead.
func (a *authority) popHead() entry {
	e := a.heads[0]
	a.heads[0] = entry{}
	a.heads = a.heads[1:]
	if len(a.heads) == 0 {
		a.heads = nil // let the array go
	}
	return e
}

// authHeap is a binary heap of authorities that knows each one's position,
// so that an authority whose head changed can be fixed or removed in
// O(log n). The ready heap orders by head request, the waiting heap by time.
type authHeap struct {
	items  []*authority
	byTime bool // the waiting heap
	order  frontier.Order
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
// the waiting heap by ready time. It is the Memory frontier's order.
func (h *authHeap) less(a, b *authority) bool {
	if h.byTime {
		return a.at.Before(b.at)
	}
	x, y := a.heads[0].req, b.heads[0].req
	if x.Priority != y.Priority {
		return x.Priority > y.Priority
	}
	if x.Depth != y.Depth {
		if h.order == frontier.DepthFirst {
			return x.Depth > y.Depth
		}
		return x.Depth < y.Depth
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

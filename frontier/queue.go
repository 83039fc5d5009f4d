package frontier

import (
	"math"

	"github.com/heedcrawl/heed/frontier/internal/sched"
)

// authority is one authority's queue in a Memory, and its scheduling
// state, which it shares with the durable frontier's (see package sched).
//
// Queued requests are kept compact: a 24-byte entry each in a binary heap,
// the URL's text after the authority (which the authority's Name holds
// once for all of them) in one byte arena per authority, and the referrer
// as an id in the Memory's table of referrers, shared by every link found
// on one page. A request with anything else set (a method, a kind other
// than page, a callback, meta, redirects, an attempt, a priority or depth
// beyond 16 bits, or more than 64 KiB of URL after the authority) is kept
// whole, as pushed, in the Memory's table
// of extras. Next builds a Request from an entry; retried requests, few
// and about to be handed out again, stay whole at the head.
type authority struct {
	sched.Slot
	front []*Request // retried requests; the last one is the head
	queue []entry    // binary heap ordered by Config.Order
	text  []byte     // URL text after the authority, of the queued entries
	dead  int        // bytes of text no queued entry uses any more
}

// entry is one queued request in compact form: 24 bytes.
type entry struct {
	seqLo, seqHi uint32 // Seq, in two halves so that entry aligns to 4 bytes
	off          uint32 // the URL after the authority: text[off:off+n]
	// id is the referrer's id in the Memory's table (0: none) or, with
	// extBit set, 1 + the index of the whole request among the extras.
	id uint32
	n  uint16
	// priority and depth are the request's, saturated to 16 bits; a
	// request whose values do not fit is an extra, which holds them.
	priority, depth int16
}

// extBit marks an entry whose request is kept whole.
const extBit = 1 << 31

func (e *entry) seq() uint64 { return uint64(e.seqHi)<<32 | uint64(e.seqLo) }

// ext returns 1 + the index of e's whole request, or 0.
func (e *entry) ext() uint32 {
	if e.id&extBit == 0 {
		return 0
	}
	return e.id &^ extBit
}

// ref returns e's referrer id, or 0.
func (e *entry) ref() uint32 {
	if e.id&extBit != 0 {
		return 0
	}
	return e.id
}

// maxText bounds an authority's arena, whose offsets are 32 bits; a request
// that would not fit, or whose URL after the authority is longer than
// maxRest, is kept whole.
const (
	maxText = math.MaxUint32
	maxRest = math.MaxUint16
)

// Queued returns how many requests a has queued.
func (a *authority) Queued() int { return len(a.front) + len(a.queue) }

// needsWhole reports whether req carries more than the compact entry
// holds: URL, depth, priority, referrer and Seq.
func needsWhole(req *Request) bool {
	return req.Method != "" || req.Kind != KindPage || req.Callback != "" || req.Meta != nil ||
		len(req.Header) > 0 || len(req.Body) > 0 ||
		req.Redirects != nil || req.Attempt != 0 ||
		req.Priority != int(int16(req.Priority)) || req.Depth != int(int16(req.Depth))
}

func sat16(v int) int16 {
	return int16(max(math.MinInt16, min(math.MaxInt16, v)))
}

// store is what an authority's queue needs from its Memory: the tables
// of referrers and extras, and the order.
type store struct {
	order  Order
	refs   internTable
	extras []*Request
	free   []uint32 // free slots of extras
}

// key returns the full priority and depth of e.
func (s *store) key(e *entry) (priority, depth int) {
	if x := e.ext(); x != 0 {
		r := s.extras[x-1]
		return r.Priority, r.Depth
	}
	return int(e.priority), int(e.depth)
}

// less reports whether e is handed out before f (see [Order.Less]).
func (s *store) less(e, f *entry) bool {
	if (e.id|f.id)&extBit == 0 {
		return keyLess(s.order, int(e.priority), int(e.depth), e.seq(), int(f.priority), int(f.depth), f.seq())
	}
	ep, ed := s.key(e)
	fp, fd := s.key(f)
	return keyLess(s.order, ep, ed, e.seq(), fp, fd, f.seq())
}

// noteHead caches the head's key; call it after every change of the queue.
func (a *authority) noteHead(s *store) {
	if n := len(a.front); n > 0 {
		h := a.front[n-1]
		a.SetHead(h.Priority, h.Depth)
	} else if len(a.queue) > 0 {
		a.SetHead(s.key(&a.queue[0]))
	}
}

// pushFront puts r at the head, before every queued request.
func (a *authority) pushFront(s *store, r *Request) {
	a.front = append(a.front, r)
	a.noteHead(s)
}

// push queues r, whose URL is canonical and starts with a.Name.
func (a *authority) push(s *store, r *Request) {
	e := entry{seqLo: uint32(r.Seq), seqHi: uint32(r.Seq >> 32), priority: sat16(r.Priority), depth: sat16(r.Depth)}
	rest := r.URL[len(a.Name):]
	if needsWhole(r) || len(rest) > maxRest || len(a.text)+len(rest) > maxText {
		e.id = extBit | s.keep(r)
	} else {
		e.off, e.n = uint32(len(a.text)), uint16(len(rest))
		a.text = append(a.text, rest...)
		e.id = s.refs.add(r.Referrer)
	}
	q := append(a.queue, e)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(&q[i], &q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	a.queue = q
	a.noteHead(s)
}

// pop removes and returns the head request.
func (a *authority) pop(s *store) *Request {
	if n := len(a.front); n > 0 {
		r := a.front[n-1]
		a.front[n-1] = nil
		a.front = a.front[:n-1]
		if n == 1 {
			a.front = nil
		}
		a.noteHead(s)
		return r
	}
	q := a.queue
	e := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if rr := l + 1; rr < n && s.less(&q[rr], &q[l]) {
			m = rr
		}
		if !s.less(&q[m], &q[i]) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	a.queue = q
	r := a.materialise(s, &e)
	if n == 0 {
		// Let a long queue's arrays go once it is empty.
		a.queue, a.text, a.dead = nil, nil, 0
	} else {
		a.dead += int(e.n)
		a.compact()
	}
	a.noteHead(s)
	return r
}

// materialise returns the request e stands for and frees its slots.
func (a *authority) materialise(s *store, e *entry) *Request {
	if x := e.ext(); x != 0 {
		return s.release(x)
	}
	r := &Request{
		URL:      a.Name + string(a.text[e.off:e.off+uint32(e.n)]),
		Depth:    int(e.depth),
		Priority: int(e.priority),
		Seq:      e.seq(),
		Referrer: s.refs.get(e.id),
	}
	s.refs.release(e.id)
	return r
}

// compact rewrites the arena once more than half of it is dead, so that
// it costs at most twice the text of the queued requests; each byte is
// copied O(1) times on average.
func (a *authority) compact() {
	if a.dead < 4096 || a.dead < len(a.text)/2 {
		return
	}
	text := make([]byte, 0, len(a.text)-a.dead)
	for i := range a.queue {
		e := &a.queue[i]
		if e.ext() != 0 {
			continue
		}
		off := len(text)
		text = append(text, a.text[e.off:e.off+uint32(e.n)]...)
		e.off = uint32(off)
	}
	a.text, a.dead = text, 0
}

// keep stores a whole request among the extras and returns its id.
func (s *store) keep(r *Request) uint32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		s.extras[i] = r
		return i + 1
	}
	s.extras = append(s.extras, r)
	return uint32(len(s.extras))
}

// release removes and returns the whole request with id ext.
func (s *store) release(ext uint32) *Request {
	r := s.extras[ext-1]
	s.extras[ext-1] = nil
	s.free = append(s.free, ext-1)
	if len(s.free) == len(s.extras) {
		s.extras, s.free = nil, nil
	}
	return r
}

// internTable holds each distinct string once, with a count of the queued
// entries that use it; id 0 is the empty string. A page's links share
// their referrer, the page's URL: ten links cost one string.
type internTable struct {
	ids   map[string]uint32
	slots []internSlot // by id-1
	free  []uint32
}

type internSlot struct {
	s    string
	refs uint32
}

func (t *internTable) add(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := t.ids[s]; ok {
		t.slots[id-1].refs++
		return id
	}
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	var id uint32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.slots[id-1] = internSlot{s: s, refs: 1}
	} else {
		t.slots = append(t.slots, internSlot{s: s, refs: 1})
		id = uint32(len(t.slots))
	}
	t.ids[s] = id
	return id
}

func (t *internTable) get(id uint32) string {
	if id == 0 {
		return ""
	}
	return t.slots[id-1].s
}

func (t *internTable) release(id uint32) {
	if id == 0 {
		return
	}
	sl := &t.slots[id-1]
	if sl.refs--; sl.refs > 0 {
		return
	}
	delete(t.ids, sl.s)
	*sl = internSlot{}
	t.free = append(t.free, id)
	if len(t.ids) == 0 {
		t.ids, t.slots, t.free = nil, nil, nil
	}
}

package durable

import (
	"bytes"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/internal/sched"
)

// authority is the part of an authority's state kept in memory: its
// scheduling state (lease count, hold, place in the heaps: the Memory
// frontier's, see package sched), its queue count, and a read-ahead of the
// first few entries of its queue. The queue itself is on disk.
type authority struct {
	sched.Slot
	id     uint32
	queued int // entries in its queue on disk

	// heads are the first len(heads) entries of the queue, in key order.
	// It is empty only when queued is 0; when it holds fewer than queued,
	// every entry on disk but not here has a larger key than its last.
	heads []entry
	// floor is the key of the last entry handed out, or a smaller key
	// queued since: no stored key is smaller, so a read of the queue may
	// start there instead of stepping over deleted entries.
	floor []byte
}

// entry is a queued request and its key.
type entry struct {
	key []byte
	req *frontier.Request
}

// Queued returns how many requests a has queued.
func (a *authority) Queued() int { return a.queued }

func (a *authority) record() authRecord {
	return authRecord{name: a.Name, queued: a.queued, hold: a.Hold}
}

// noteHead tells the scheduler a's head request; call it after every
// change of the read-ahead's first entry.
func (a *authority) noteHead() {
	if len(a.heads) > 0 {
		h := a.heads[0].req
		a.SetHead(h.Priority, h.Depth)
	}
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
	if i == 0 {
		a.noteHead()
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
	a.noteHead()
	return e
}

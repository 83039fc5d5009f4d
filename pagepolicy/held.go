package pagepolicy

import (
	"slices"
	"strings"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// MaxHeld bounds the links a Held keeps.
const MaxHeld = 1 << 20

// Held keeps the links not followed because of nofollow, each with the
// record it gets if nothing else leads to it. The crawler pushes them when
// the crawl ends, through an admission that refuses each with its record
// (Take): a URL reached another way by then is a duplicate (counted, not
// logged), any other gets its one record. The zero Held is empty and ready
// for use; it is safe for concurrent use.
type Held struct {
	mu      sync.Mutex
	byURL   map[string]*frontier.Request
	records map[*frontier.Request]*skiplog.Record
}

// Hold keeps req with its record rec. It reports false when the Held is
// full (MaxHeld): the caller then writes rec at once (the URL may then
// also be reached another way and fetched). A URL held already keeps its
// first evidence.
func (h *Held) Hold(req *frontier.Request, rec *skiplog.Record) bool {
	key := req.URL
	if c, err := frontier.Canonicalize(req.URL); err == nil {
		key = c
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byURL == nil {
		h.byURL = map[string]*frontier.Request{}
		h.records = map[*frontier.Request]*skiplog.Record{}
	}
	if _, ok := h.byURL[key]; ok {
		return true
	}
	if len(h.byURL) >= MaxHeld {
		return false
	}
	h.byURL[key] = req
	h.records[req] = rec
	return true
}

// Holds reports whether req is a held link that has not been taken.
func (h *Held) Holds(req *frontier.Request) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.records[req]
	return ok
}

// Take returns the record of the held link req and forgets it; nil when
// req is not held.
func (h *Held) Take(req *frontier.Request) *skiplog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.records[req]
	delete(h.records, req)
	return rec
}

// Release returns the held links in URL order, for pushing, and stops
// holding new ones under their URLs; their records stay until taken.
func (h *Held) Release() []*frontier.Request {
	h.mu.Lock()
	reqs := make([]*frontier.Request, 0, len(h.byURL))
	for _, req := range h.byURL {
		reqs = append(reqs, req)
	}
	h.byURL = nil
	h.mu.Unlock()
	slices.SortFunc(reqs, func(a, b *frontier.Request) int { return strings.Compare(a.URL, b.URL) })
	return reqs
}

// Forget drops the records no push took.
func (h *Held) Forget() {
	h.mu.Lock()
	h.records = nil
	h.mu.Unlock()
}

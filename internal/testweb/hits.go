package testweb

import (
	"sync"
	"time"
)

// Hit is one request a Site received.
type Hit struct {
	// Time is when the request reached the handler, before any sleep.
	Time time.Time
	// Done is when the handler finished; zero while it runs.
	Done time.Time
	// Host is the name of the host that received it ("main", "delay", ...).
	Host string
	// Authority is that host's authority ("http://127.0.0.2:41234").
	Authority string
	// Method is the HTTP method.
	Method string
	// Path is the request URI as received: path and query, as sent.
	Path string
	// UserAgent is the User-Agent header.
	UserAgent string
	// Status is the status code answered; 0 while the handler runs or when
	// the client went away before an answer was written.
	Status int
	// Served names what was served when a host's answer depends on its
	// history: "v1" or "v2" for the changing host's robots.txt,
	// "unavailable" or "recovered" for the flaky host's, "first" or
	// "again" for the rate-limited pages, "redirect N" for robots.txt redirect
	// hops, "abandoned" when the client left during a sleep. Empty for
	// ordinary answers.
	Served string
}

// hitLog records hits in arrival order. A slot is taken when a request
// arrives and completed when it is answered, so the order is the arrival
// order even though answers finish out of order.
type hitLog struct {
	mu      sync.Mutex
	hits    []Hit
	limit   int
	dropped int64
}

// begin records h and returns its slot, or -1 when the log is full.
func (l *hitLog) begin(h Hit) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hits) >= l.limit {
		l.dropped++
		return -1
	}
	l.hits = append(l.hits, h)
	return len(l.hits) - 1
}

func (l *hitLog) finish(slot, status int, served string, done time.Time) {
	if slot < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &l.hits[slot]
	h.Status, h.Served, h.Done = status, served, done
}

func (l *hitLog) snapshot(keep func(*Hit) bool) []Hit {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Hit, 0, len(l.hits))
	for i := range l.hits {
		if keep == nil || keep(&l.hits[i]) {
			out = append(out, l.hits[i])
		}
	}
	return out
}

func (l *hitLog) droppedCount() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// PageRequests counts the recorded requests for pages, by URL
// (Authority + Path as received): every request except those for a
// robots.txt file, the redirect hops and files that lead to one, and
// sitemaps (including /sitemap.xml probes). Its keys are what a test
// compares with [Expected.Fetched]; a count above 1 is a page fetched
// more than once (the rate-limited pages are fetched twice by design).
func (s *Site) PageRequests() map[string]int {
	out := map[string]int{}
	for _, hit := range s.Hits() {
		h := s.byAuthority[hit.Authority]
		if h == nil || !h.content.isPage(hit.Path) {
			continue
		}
		out[hit.Authority+hit.Path]++
	}
	return out
}

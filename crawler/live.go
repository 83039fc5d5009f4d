package crawler

import (
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/politeness"
)

// WithStartLog makes the crawl keep the last n request starts of every
// authority (politeness.WithStartLog), for a live view of the spacing:
// read them with Live.Starts. The default, 0, keeps none. A crawl shared
// through Redis paces in Redis and keeps none.
func WithStartLog(n int) Option { return func(c *config) { c.startLog = n } }

// Live is a read-only view of a running crawl's queue and pacing, for
// dashboards such as heed's ui package; the counts are in Stats. Every
// method is safe for concurrent use, changes nothing, and costs the crawl
// one lock of the part it reads for as long as the copy takes.
type Live struct {
	front  frontier.Frontier
	pacer  livePacer // nil for a pacer that keeps its state elsewhere
	robots robotsView
}

// robotsView is what Live reads of the robots stage.
type robotsView interface {
	Waiting(authority string) bool
}

// livePacer is what Live reads of a pacer that keeps its state in this
// process (politeness.Pacer).
type livePacer interface {
	Snapshot() map[string]politeness.AuthorityState
	ReadyAt(authority string) time.Time
	RecentStarts() map[string][]time.Time
}

// Live returns the view of the crawl Run is running (or has run), or nil
// before Run has wired it.
func (c *Crawler) Live() *Live { return c.live.Load() }

// Queue returns the frontier's counts, with the requests queued per
// authority.
func (l *Live) Queue() frontier.Stats { return l.front.Stats() }

// Pacing returns the pacing state of every authority seen; nil for a
// crawl shared through Redis, whose pacing is kept in Redis.
func (l *Live) Pacing() map[string]politeness.AuthorityState {
	if l.pacer == nil {
		return nil
	}
	return l.pacer.Snapshot()
}

// ReadyAt returns the earliest time a request to authority may start
// (politeness.Pacer.ReadyAt); the zero time for a crawl shared through
// Redis.
func (l *Live) ReadyAt(authority string) time.Time {
	if l.pacer == nil {
		return time.Time{}
	}
	return l.pacer.ReadyAt(authority)
}

// Starts returns the latest request starts per authority, oldest first,
// when the crawl keeps a start log (WithStartLog); nil otherwise.
func (l *Live) Starts() map[string][]time.Time {
	if l.pacer == nil {
		return nil
	}
	return l.pacer.RecentStarts()
}

// Hosts counts a running crawl's authorities by what they are doing.
type Hosts struct {
	// Active authorities have a request in flight.
	Active int
	// Waiting authorities have URLs queued and nothing in flight: they
	// wait for their pace or a free worker.
	Waiting int
	// Paused authorities have URLs queued and are paused: by a 429 or 503
	// (Retry-After) or by the backoff after failures.
	Paused int
	// Robots authorities have URLs queued that wait for their robots.txt:
	// being fetched, or unreachable and retried.
	Robots int
	// Paced is false for a crawl whose pacing is kept in Redis: Active
	// and Paused are then not known, and Waiting counts them too.
	Paced bool
}

// Hosts counts the authorities with queued URLs or requests in flight,
// at now, each under one heading (Robots first, then Active, Paused,
// Waiting).
func (l *Live) Hosts(now time.Time) Hosts {
	q := l.front.Stats()
	var pacing map[string]politeness.AuthorityState
	if l.pacer != nil {
		pacing = l.pacer.Snapshot()
	}
	h := Hosts{Paced: l.pacer != nil}
	for _, ps := range pacing {
		if ps.InFlight > 0 {
			h.Active++
		}
	}
	for a, n := range q.ByAuthority {
		if n == 0 || pacing[a].InFlight > 0 {
			continue
		}
		switch {
		case l.robots != nil && l.robots.Waiting(a):
			h.Robots++
		case pacing[a].PausedUntil.After(now):
			h.Paused++
		default:
			h.Waiting++
		}
	}
	return h
}

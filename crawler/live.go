package crawler

import "github.com/heedcrawl/heed/live"

// WithStartLog makes the crawl keep the last n request starts of every
// authority (politeness.WithStartLog), for a live view of the spacing:
// read them with Live.Starts. The default, 0, keeps none. A crawl shared
// through Redis paces in Redis and keeps none.
func WithStartLog(n int) Option { return func(c *config) { c.startLog = n } }

// Live is a read-only view of a running crawl's queue and pacing, for
// dashboards such as heed's ui package; the counts are in Stats. It is
// package live's View, which owns its contract and its limits.
type Live = live.View

// Hosts counts a running crawl's authorities by what they are doing
// (live.Hosts).
type Hosts = live.Hosts

// Live returns the view of the crawl Run is running (or has run), or nil
// before Run has wired it.
func (c *Crawler) Live() *Live { return c.live.Load() }

// newLive returns the view of a run's parts: its pacer's pacing and start
// log only when the pacer keeps them in this process.
func (r *run) newLive() *Live {
	p, _ := r.pace.(live.Pacer)
	s, _ := r.pace.(live.StartLog)
	return live.New(r.front, p, s, r.robots)
}

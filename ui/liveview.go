package ui

import (
	"cmp"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// LiveView is the live page's data at one moment, as /api/live and the
// event stream serve it.
type LiveView struct {
	Time     time.Time `json:"time"`
	Agent    string    `json:"agent"`
	Running  bool      `json:"running"`
	Finished bool      `json:"finished"`
	Elapsed  float64   `json:"elapsed_s"`
	// Pages, Bytes, Items, ItemsDropped: the crawl's counts.
	Pages        int64 `json:"pages"`
	Bytes        int64 `json:"bytes"`
	Items        int64 `json:"items"`
	ItemsDropped int64 `json:"items_dropped"`
	// Errors counts 5xx answers, fetch errors (every retry failed), and
	// callback and item errors.
	Errors     int64 `json:"errors"`
	Queued     int   `json:"queued"`
	InFlight   int   `json:"in_flight"`
	Duplicates int64 `json:"duplicates"`
	Skipped    int64 `json:"skipped"`
	// Rate is pages per second over the last minute; RateSeries its
	// points, one per sample: seconds before Time and pages per second.
	Rate        float64       `json:"rate"`
	RateSeries  []RatePoint   `json:"rate_series"`
	SkipReasons []ReasonCount `json:"skip_reasons"`
	// Authorities lists the authorities with the most requests (at most
	// MaxAuthorities); AuthoritiesTotal counts them all.
	Authorities      []AuthorityView `json:"authorities"`
	AuthoritiesTotal int             `json:"authorities_total"`
	// Pacing is false for a crawl whose pacing is kept elsewhere (a fleet
	// through Redis): the pacing columns are then empty.
	Pacing bool `json:"pacing"`
	// Charts are the page's SVG figures, rendered on the server.
	Charts LiveCharts `json:"charts"`
}

// RatePoint is one point of the rate plot.
type RatePoint struct {
	Ago  float64 `json:"ago_s"`
	Rate float64 `json:"rate"`
}

// ReasonCount is a skip reason and its records.
type ReasonCount struct {
	Reason skiplog.Reason `json:"reason"`
	Count  int64          `json:"count"`
}

// AuthorityView is one row of the per-authority table.
type AuthorityView struct {
	Authority    string `json:"authority"`
	Robots       string `json:"robots"`
	RobotsStatus int    `json:"robots_status"`
	// CrawlDelay and Interval are in seconds; Interval is the spacing in
	// force (the larger of the floor and the Crawl-delay).
	CrawlDelay float64 `json:"crawl_delay_s"`
	Interval   float64 `json:"interval_s"`
	Excluded   bool    `json:"excluded,omitempty"`
	Requests   int64   `json:"requests"`
	Queued     int     `json:"queued"`
	Skipped    int64   `json:"skipped"`
	// LastRequest is the last start; NextStart the earliest next one
	// (zero: now); PausedUntil a pause in force, by Retry-After when
	// RetryAfter.
	LastRequest time.Time `json:"last_request,omitzero"`
	NextStart   time.Time `json:"next_start,omitzero"`
	PausedUntil time.Time `json:"paused_until,omitzero"`
	RetryAfter  bool      `json:"retry_after,omitempty"`
	// Starts are the latest request starts kept (crawler.WithStartLog);
	// MinGap the least gap between two of them, in seconds.
	Starts []time.Time `json:"starts,omitempty"`
	MinGap float64     `json:"min_gap_s,omitempty"`
}

// LiveCharts holds the rendered figures.
type LiveCharts struct {
	Rate     template.HTML `json:"rate"`
	Skips    template.HTML `json:"skips"`
	Timeline template.HTML `json:"timeline"`
}

// errorStatuses says which statuses count as errors.
func isErrorStatus(code int) bool { return code >= 500 }

// View returns the live view now. Views are cached for half the sample
// interval, so that any number of open pages cost the crawl what one does.
func (m *Monitor) View() *LiveView {
	m.viewMu.Lock()
	defer m.viewMu.Unlock()
	now := m.now()
	if m.view != nil && now.Sub(m.viewAt) < m.interval/2 {
		return m.view
	}
	m.view, m.viewAt = m.build(now), now
	return m.view
}

func (m *Monitor) build(now time.Time) *LiveView {
	snap := m.c.Stats().Snapshot()
	running, finished, samples := m.state()
	v := &LiveView{
		Time: now, Agent: m.c.Agent(), Running: running, Finished: finished,
		Elapsed: snap.Elapsed.Seconds(), Pages: snap.Pages, Bytes: snap.Bytes,
		Items: snap.Items, ItemsDropped: snap.ItemsDropped,
		Queued: snap.Waiting, InFlight: snap.InFlight, Duplicates: snap.Duplicates,
		Skipped: snap.SkippedTotal(),
	}
	for code, n := range snap.Statuses {
		if isErrorStatus(code) {
			v.Errors += n
		}
	}
	v.Errors += snap.Skipped[skiplog.FetchError] + snap.CallbackErrors + snap.ItemErrors
	v.RateSeries, v.Rate = rateSeries(samples, now)
	for _, r := range skiplog.Reasons {
		if n := snap.Skipped[r]; n > 0 {
			v.SkipReasons = append(v.SkipReasons, ReasonCount{r, n})
		}
	}
	for r, n := range snap.Skipped { // reasons newer than this list
		if n > 0 && !slices.Contains(skiplog.Reasons, r) {
			v.SkipReasons = append(v.SkipReasons, ReasonCount{r, n})
		}
	}
	v.Authorities, v.AuthoritiesTotal, v.Pacing = m.authorities(snap)
	v.Charts = LiveCharts{
		Rate:     rateChart(v.RateSeries),
		Skips:    barChart(v.SkipReasons),
		Timeline: timelineChart(v.Authorities, now),
	}
	return v
}

// rateSeries turns page-count samples into pages per second, and the
// rate over the whole window.
func rateSeries(s []sample, now time.Time) ([]RatePoint, float64) {
	out := []RatePoint{}
	for i := 1; i < len(s); i++ {
		dt := s[i].at.Sub(s[i-1].at).Seconds()
		if dt <= 0 {
			continue
		}
		out = append(out, RatePoint{Ago: now.Sub(s[i].at).Seconds(), Rate: float64(s[i].pages-s[i-1].pages) / dt})
	}
	if len(s) < 2 {
		return out, 0
	}
	first, last := s[0], s[len(s)-1]
	dt := last.at.Sub(first.at).Seconds()
	if dt <= 0 {
		return out, 0
	}
	return out, float64(last.pages-first.pages) / dt
}

// authorities builds the per-authority rows from the counts, the queue
// and the pacing.
func (m *Monitor) authorities(snap stats.Snapshot) ([]AuthorityView, int, bool) {
	rows := make(map[string]*AuthorityView, len(snap.Authorities))
	row := func(a string) *AuthorityView {
		r := rows[a]
		if r == nil {
			r = &AuthorityView{Authority: a}
			rows[a] = r
		}
		return r
	}
	for a, as := range snap.Authorities {
		r := row(a)
		r.Robots, r.RobotsStatus, r.Requests = as.Robots, as.RobotsStatus, as.Pages
		for _, n := range as.Skipped {
			r.Skipped += n
		}
	}
	live := m.c.Live()
	pacing := false
	if live != nil {
		for a, n := range live.Queue().ByAuthority {
			row(a).Queued = n
		}
		if ps := live.Pacing(); ps != nil {
			pacing = true
			for a, st := range ps {
				r := row(a)
				r.CrawlDelay, r.Interval, r.Excluded = st.CrawlDelay.Seconds(), st.Interval.Seconds(), st.Excluded
				r.LastRequest = st.LastStart
				if st.PausedUntil.After(m.now()) {
					r.PausedUntil, r.RetryAfter = st.PausedUntil, st.PausedByRetryAfter
				}
			}
		}
	}
	list := make([]*AuthorityView, 0, len(rows))
	for _, r := range rows {
		if r.Authority != "" {
			list = append(list, r)
		}
	}
	slices.SortFunc(list, func(a, b *AuthorityView) int {
		if c := cmp.Compare(b.Requests+int64(b.Queued), a.Requests+int64(a.Queued)); c != 0 {
			return c
		}
		return strings.Compare(a.Authority, b.Authority)
	})
	total := len(list)
	list = list[:min(len(list), MaxAuthorities)]
	var starts map[string][]time.Time
	if live != nil && pacing {
		starts = live.Starts()
	}
	out := make([]AuthorityView, len(list))
	for i, r := range list {
		if live != nil && pacing {
			if t := live.ReadyAt(r.Authority); t.After(m.now()) {
				r.NextStart = t
			}
		}
		r.Starts = starts[r.Authority]
		r.MinGap = minGap(r.Starts)
		out[i] = *r
	}
	// The table reads best in authority order.
	slices.SortFunc(out, func(a, b AuthorityView) int { return strings.Compare(a.Authority, b.Authority) })
	return out, total, pacing
}

func minGap(ts []time.Time) float64 {
	best := -1.0
	for i := 1; i < len(ts); i++ {
		if g := ts[i].Sub(ts[i-1]).Seconds(); best < 0 || g < best {
			best = g
		}
	}
	return max(best, 0)
}

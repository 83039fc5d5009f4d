package main

import (
	"math"
	"sort"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
)

// hitStats is what the test site's hit log says about one crawl. It is
// the measure of record: a crawler's own counts are not trusted.
type hitStats struct {
	Requests         int `json:"requests"`
	UniquePages      int `json:"unique_pages"`
	DuplicateFetches int `json:"duplicate_fetches"` // page requests beyond the first of each URL
	Non2xx           int `json:"non_2xx"`
	Authorities      int `json:"authorities"`
	// RobotsRequests counts robots.txt requests; RobotsMin and RobotsMax
	// are the fewest and most any one authority of the site received, and
	// RobotsNotOne the authorities that did not receive exactly one.
	RobotsRequests int `json:"robots_requests"`
	RobotsMin      int `json:"robots_min"`
	RobotsMax      int `json:"robots_max"`
	RobotsNotOne   int `json:"robots_not_one"`
	// Missing counts pages the oracle expects fetched that were never
	// requested; Unexpected, requested pages it does not expect.
	Missing    int `json:"missing"`
	Unexpected int `json:"unexpected"`
	// Dropped counts requests the site served but did not record.
	Dropped int64 `json:"dropped"`
	// GapViolations counts consecutive requests to one authority (any
	// path, robots.txt included) that arrived closer together than the
	// gap checked for; MinGapSeconds is the smallest such spacing seen.
	GapViolations int     `json:"gap_violations"`
	MinGapSeconds float64 `json:"min_gap_seconds"`
	// SpanSeconds is the longest time from an authority's first request
	// to its last one.
	SpanSeconds float64 `json:"span_seconds"`
	// First and Last are the arrival times of the first and last request.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// analyse reads the hit log of a closed site. gap is the spacing every
// authority asked for (0: none).
func analyse(site *testweb.Site, agent string, gap time.Duration) hitStats {
	hits := site.Hits()
	st := hitStats{Requests: len(hits), Dropped: site.DroppedHits()}

	pages := site.PageRequests()
	st.UniquePages = len(pages)
	for _, n := range pages {
		st.DuplicateFetches += n - 1
	}
	exp := site.Expected(agent)
	for u := range exp.Fetched {
		if pages[u] == 0 {
			st.Missing++
		}
	}
	for u := range pages {
		if !exp.Fetched[u] {
			st.Unexpected++
		}
	}

	byAuth := map[string][]time.Time{}
	robots := map[string]int{}
	for _, h := range hits {
		if st.First.IsZero() || h.Time.Before(st.First) {
			st.First = h.Time
		}
		if h.Time.After(st.Last) {
			st.Last = h.Time
		}
		byAuth[h.Authority] = append(byAuth[h.Authority], h.Time)
		if h.Path == "/robots.txt" {
			robots[h.Authority]++
			st.RobotsRequests++
		}
		if h.Status < 200 || h.Status > 299 {
			st.Non2xx++
		}
	}
	hosts := site.Hosts()
	st.Authorities = len(hosts)
	st.RobotsMin = math.MaxInt
	for _, h := range hosts {
		n := robots[h.Authority]
		st.RobotsMin = min(st.RobotsMin, n)
		st.RobotsMax = max(st.RobotsMax, n)
		if n != 1 {
			st.RobotsNotOne++
		}
	}
	if len(hosts) == 0 {
		st.RobotsMin = 0
	}
	st.GapViolations, st.MinGapSeconds, st.SpanSeconds = spacing(byAuth, gap)
	return st
}

// spacing checks the arrival times of each authority's requests against
// gap. It returns how many consecutive pairs arrived closer than gap, the
// smallest spacing of any pair, and the longest first-to-last span.
func spacing(byAuth map[string][]time.Time, gap time.Duration) (violations int, minGap, span float64) {
	minGap = math.Inf(1)
	for _, ts := range byAuth {
		// Hits are logged in arrival order, but each is stamped just
		// before it takes its slot: sort to be exact.
		sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
		for i := 1; i < len(ts); i++ {
			d := ts[i].Sub(ts[i-1])
			if d < gap {
				violations++
			}
			minGap = math.Min(minGap, d.Seconds())
		}
		if len(ts) > 0 {
			span = math.Max(span, ts[len(ts)-1].Sub(ts[0]).Seconds())
		}
	}
	if math.IsInf(minGap, 1) {
		minGap = 0
	}
	return violations, minGap, span
}

package benchkit

import (
	"math"
	"sort"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
)

// HitStats is what a test site's hit log says about one crawl. It is the
// measure of record: a crawler's own counts are not trusted.
type HitStats struct {
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
	// to its last one; MedianGapSeconds and P95GapSeconds describe the
	// spacing of all consecutive requests to one authority.
	SpanSeconds      float64 `json:"span_seconds"`
	MedianGapSeconds float64 `json:"median_gap_seconds"`
	P95GapSeconds    float64 `json:"p95_gap_seconds"`
	// Violations lists the first gap violations one by one.
	Violations []GapViolation `json:"violations,omitempty"`
	// First and Last are the arrival times of the first and last request.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// AnalyseHits reads the hit log of a closed site crawled as agent. gap is
// the spacing every authority asked for (0: none).
func AnalyseHits(site *testweb.Site, agent string, gap time.Duration) HitStats {
	hits := site.Hits()
	st := HitStats{Requests: len(hits), Dropped: site.DroppedHits()}

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

	byAuth := map[string][]Stamp{}
	robots := map[string]int{}
	for _, h := range hits {
		if st.First.IsZero() || h.Time.Before(st.First) {
			st.First = h.Time
		}
		if h.Time.After(st.Last) {
			st.Last = h.Time
		}
		byAuth[h.Authority] = append(byAuth[h.Authority], Stamp{Path: h.Path, Time: h.Time})
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
	sp := MeasureSpacing(byAuth, gap)
	st.GapViolations, st.MinGapSeconds, st.SpanSeconds, st.Violations = sp.Violations, sp.MinGap, sp.Span, sp.Details
	st.MedianGapSeconds, st.P95GapSeconds = sp.MedianGap, sp.P95Gap
	return st
}

// Stamp is one request to an authority at one moment: its arrival in the
// site's hit log, or its start in the crawler's transport.
type Stamp struct {
	Path string    `json:"path"`
	Time time.Time `json:"time"`
}

// GapViolation is one pair of consecutive requests to an authority that
// came closer together than asked.
type GapViolation struct {
	Authority string  `json:"authority"`
	Prev      string  `json:"prev"`
	Path      string  `json:"path"`
	Gap       float64 `json:"gap_seconds"`
	// GapBefore is the spacing of the pair before this one (Prev and its
	// predecessor), -1 for none: a long gap before a short one points to
	// Prev arriving late rather than Path leaving early.
	GapBefore float64 `json:"gap_before_seconds"`
}

// MaxViolationDetails bounds the violations a Spacing lists one by one.
const MaxViolationDetails = 20

// Spacing is how the requests to each authority were spaced.
type Spacing struct {
	Violations int     `json:"violations"`
	MinGap     float64 `json:"min_gap_seconds"`
	Span       float64 `json:"span_seconds"` // longest first-to-last of one authority
	// MedianGap and P95Gap describe every consecutive pair's spacing: how
	// much more than the asked gap a request costs.
	MedianGap float64        `json:"median_gap_seconds"`
	P95Gap    float64        `json:"p95_gap_seconds"`
	Details   []GapViolation `json:"details,omitempty"`
}

// MeasureSpacing checks each authority's requests against gap: how many
// consecutive pairs came closer than gap (each listed, up to
// MaxViolationDetails), the smallest spacing of any pair, and the longest
// first-to-last span. It sorts each authority's stamps by time.
func MeasureSpacing(byAuth map[string][]Stamp, gap time.Duration) Spacing {
	res := Spacing{MinGap: math.Inf(1)}
	auths := make([]string, 0, len(byAuth))
	for a := range byAuth {
		auths = append(auths, a)
	}
	sort.Strings(auths)
	var gaps []float64
	for _, a := range auths {
		ts := byAuth[a]
		// Hits are logged in arrival order, but each is stamped just
		// before it takes its slot: sort to be exact.
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].Time.Before(ts[j].Time) })
		for i := 1; i < len(ts); i++ {
			d := ts[i].Time.Sub(ts[i-1].Time)
			gaps = append(gaps, d.Seconds())
			if d < gap {
				res.Violations++
				if len(res.Details) < MaxViolationDetails {
					before := -1.0
					if i >= 2 {
						before = ts[i-1].Time.Sub(ts[i-2].Time).Seconds()
					}
					res.Details = append(res.Details, GapViolation{
						Authority: a, Prev: ts[i-1].Path, Path: ts[i].Path, Gap: d.Seconds(), GapBefore: before,
					})
				}
			}
			res.MinGap = math.Min(res.MinGap, d.Seconds())
		}
		if len(ts) > 0 {
			res.Span = math.Max(res.Span, ts[len(ts)-1].Time.Sub(ts[0].Time).Seconds())
		}
	}
	if math.IsInf(res.MinGap, 1) {
		res.MinGap = 0
	}
	if len(gaps) > 0 {
		sort.Float64s(gaps)
		res.MedianGap = Median(gaps)
		res.P95Gap = gaps[min(len(gaps)-1, int(math.Ceil(0.95*float64(len(gaps))))-1)]
	}
	return res
}

// Worst is the worst of several runs' hit-log counts that must hold every
// time. A report shows these rather than medians: one run with a duplicate
// fetch or a gap violation is a fault however good the others were. The
// zero value is ready for Add.
type Worst struct {
	MaxDuplicates    int `json:"duplicates_max"`
	MaxMissing       int `json:"missing_max"`
	MaxUnexpected    int `json:"unexpected_max"`
	MaxRobotsNotOne  int `json:"authorities_not_one_robots_max"`
	MaxGapViolations int `json:"gap_violations_max"`
	// MinGapSeconds is the smallest MinGapSeconds of any run (0 before
	// the first).
	MinGapSeconds float64 `json:"min_gap_seconds"`

	runs int
}

// Add counts one run's hit statistics in.
func (w *Worst) Add(h HitStats) {
	if w.runs == 0 || h.MinGapSeconds < w.MinGapSeconds {
		w.MinGapSeconds = h.MinGapSeconds
	}
	w.runs++
	w.MaxDuplicates = max(w.MaxDuplicates, h.DuplicateFetches)
	w.MaxMissing = max(w.MaxMissing, h.Missing)
	w.MaxUnexpected = max(w.MaxUnexpected, h.Unexpected)
	w.MaxRobotsNotOne = max(w.MaxRobotsNotOne, h.RobotsNotOne)
	w.MaxGapViolations = max(w.MaxGapViolations, h.GapViolations)
}

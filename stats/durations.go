package stats

import (
	"strconv"
	"time"
)

// DurationBuckets are the upper bounds, in seconds, of the buckets of the
// request-duration histograms Stats keeps (Snapshot.Durations). They span
// a loopback answer to a request timing out after a minute.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// DurationHistogram counts the requests of one status class by how long
// they took: Buckets[i] counts those that took at most DurationBuckets[i]
// seconds and more than the bound before it (the counts are not
// cumulative; those above the last bound are only in Count).
type DurationHistogram struct {
	Count   int64   `json:"count"`
	Sum     float64 `json:"sum_seconds"`
	Buckets []int64 `json:"buckets"`
}

// observe adds one request of d.
func (h *DurationHistogram) observe(d time.Duration) {
	if len(h.Buckets) != len(DurationBuckets) {
		h.Buckets = make([]int64, len(DurationBuckets))
	}
	s := d.Seconds()
	h.Count++
	h.Sum += s
	for i, b := range DurationBuckets {
		if s <= b {
			h.Buckets[i]++
			return
		}
	}
}

// Cumulative returns the histogram's bucket counts as Prometheus writes
// them: for each bound of DurationBuckets, the requests that took at most
// that long.
func (h DurationHistogram) Cumulative() map[float64]uint64 {
	out := make(map[float64]uint64, len(DurationBuckets))
	var n uint64
	for i, b := range DurationBuckets {
		if i < len(h.Buckets) {
			n += uint64(h.Buckets[i])
		}
		out[b] = n
	}
	return out
}

// StatusClass is how the duration histograms group requests: "1xx" to
// "5xx" by the response's status, "error" for a request that got no
// response (refused, reset, timed out).
func StatusClass(status int, err error) string {
	if err != nil || status < 100 || status > 599 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}

// RequestTook counts one request of the status class (StatusClass) that
// took d, in the class's duration histogram.
func (st *Collector) RequestTook(class string, d time.Duration) {
	st.add(func(s *Snapshot) {
		if s.Durations == nil {
			s.Durations = map[string]DurationHistogram{}
		}
		h := s.Durations[class]
		h.observe(d) // in place: Snapshot copies the buckets
		s.Durations[class] = h
	})
}

// cloneDurations copies histograms so that a snapshot shares no bucket
// slice with the live counts.
func cloneDurations(m map[string]DurationHistogram) map[string]DurationHistogram {
	if m == nil {
		return nil
	}
	out := make(map[string]DurationHistogram, len(m))
	for k, h := range m {
		h.Buckets = append([]int64(nil), h.Buckets...)
		out[k] = h
	}
	return out
}

// Package benchkit holds what heed's whole-crawl benchmark harnesses
// (bench/crawlbench and bench/fleetbench) measure alike: the account a
// test site's hit log gives of a crawl (pages fetched, missing and
// duplicated, robots.txt requests per authority, the spacing of requests
// to each authority), the medians their reports give, the machine's load
// beside the figures, and the Markdown tables they print.
//
// It does not run crawls, start servers or decide what a report shows:
// each harness does, for its own question.
package benchkit

import (
	"math"
	"os"
	"slices"
	"strings"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), NaN for none. It leaves xs as it was.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// LoadAverage returns the first three fields of /proc/loadavg, or "" where
// there is none. The machines the benchmarks run on are shared: a high
// load explains slow, noisy runs.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

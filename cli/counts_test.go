package cli

import (
	"testing"

	"github.com/heedcrawl/heed/skiplog"
)

// status --redis writes its counters, whatever their key, as "k=n" in
// key order, or "none".
func TestCounts(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{counts(map[int]int64{503: 1, 200: 7, 404: 2}), "200=7 404=2 503=1"},
		{counts(map[string]int64{"unreachable": 1, "available": 3}), "available=3 unreachable=1"},
		{counts(map[skiplog.Reason]int64{skiplog.RobotsDisallow: 2}), "robots-disallow=2"},
		{counts(map[int]int64{}), "none"},
		{counts[string](nil), "none"},
	} {
		if c.got != c.want {
			t.Errorf("counts: %q, want %q", c.got, c.want)
		}
	}
}

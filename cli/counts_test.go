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

// Skip reasons are written with their total, leaving out reasons that
// count nothing.
func TestReasonCounts(t *testing.T) {
	m := map[skiplog.Reason]int64{skiplog.RobotsDisallow: 2, skiplog.Offsite: 1, skiplog.Depth: 0}
	if got, want := reasonCounts(m), "3 URLs: offsite=1 robots-disallow=2"; got != want {
		t.Errorf("reasonCounts: %q, want %q", got, want)
	}
	if got := reasonCounts(map[skiplog.Reason]int64{skiplog.Depth: 0}); got != "none" {
		t.Errorf("reasonCounts of nothing: %q", got)
	}
}

package stats

import (
	"strings"
	"testing"

	"github.com/heedcrawl/heed/skiplog"
)

// TestSharedFormat checks the crawl-wide summary of a shared crawl: a
// complete one, one with work left to the other processes, and one whose
// counts could not be read.
func TestSharedFormat(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    Shared
		want []string
	}{
		{"complete", Shared{CrawlID: "news", Pages: 3, Bytes: 2048, Done: true,
			Skipped: map[skiplog.Reason]int64{skiplog.RobotsDisallow: 2, skiplog.Offsite: 1}},
			[]string{"crawl news (all processes): 3 pages (2.0 KiB), 3 skipped, 0 leases reclaimed from stopped processes; complete: nothing queued",
				"skipped by reason: offsite=1 robots-disallow=2"}},
		{"left", Shared{CrawlID: "news", Pages: 1, Queued: 7, Leased: 2, Reclaimed: 1},
			[]string{"1 leases reclaimed", "7 URLs queued and 2 in flight, left to the other processes"}},
		{"unreadable", Shared{CrawlID: "news", Err: "redis: connection refused"},
			[]string{"crawl news (all processes): counts unavailable: redis: connection refused"}},
	} {
		var b strings.Builder
		if err := tt.s.Format(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, b.String(), w)
			}
		}
		if tt.s.Complete() != tt.s.Done {
			t.Errorf("%s: Complete %v, Done %v", tt.name, tt.s.Complete(), tt.s.Done)
		}
	}
}

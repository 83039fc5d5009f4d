package stats

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/heedcrawl/heed/skiplog"
)

// TestStatsRestoreAddsUpRuns saves a run's statistics as a state does
// (through JSON) and continues them in a new Collector, as a resumed run does.
func TestStatsRestoreAddsUpRuns(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := t0
	now := func() time.Time { return clock }

	first := New(now)
	first.Start()
	first.Fetched("http://a.test", 200, 100)
	first.Fetched("http://a.test", 404, 10)
	first.Item()
	first.Duplicate()
	first.Skipped(&skiplog.Record{URL: "http://a.test/x", Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
	clock = clock.Add(3 * time.Second)
	b, err := json.Marshal(first.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var saved Snapshot
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}

	// An hour later, a second run; the skip log holds one more record
	// than the saved statistics (written after their last checkpoint).
	clock = clock.Add(time.Hour)
	second := New(now)
	second.Start()
	skips := skiplog.Summary{}
	skips.Add(&skiplog.Record{URL: "http://a.test/x", Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
	skips.Add(&skiplog.Record{URL: "http://b.test/y", Authority: "http://b.test", Reason: skiplog.FetchError})
	second.Restore(&saved, skips, 2)
	second.Fetched("http://b.test", 200, 50)
	clock = clock.Add(2 * time.Second)
	s := second.Snapshot()

	if s.Runs != 2 || s.Pages != 3 || s.Bytes != 160 || s.Items != 1 || s.Duplicates != 1 {
		t.Errorf("counts: runs %d pages %d bytes %d items %d duplicates %d", s.Runs, s.Pages, s.Bytes, s.Items, s.Duplicates)
	}
	if s.Elapsed != 5*time.Second || !s.Started.Equal(t0) {
		t.Errorf("elapsed %v since %v, want 5s (the runs, not the pause) since %v", s.Elapsed, s.Started, t0)
	}
	if s.Statuses[200] != 2 || s.Statuses[404] != 1 {
		t.Errorf("statuses %v", s.Statuses)
	}
	if s.Skipped[skiplog.RobotsDisallow] != 1 || s.Skipped[skiplog.FetchError] != 1 || s.SkippedTotal() != 2 {
		t.Errorf("skipped %v, want the skip log's counts", s.Skipped)
	}
	if a := s.Authorities["http://a.test"]; a.Pages != 2 || a.Skipped[skiplog.RobotsDisallow] != 1 {
		t.Errorf("authority a: %+v", a)
	}
	if b := s.Authorities["http://b.test"]; b.Pages != 1 || b.Skipped[skiplog.FetchError] != 1 {
		t.Errorf("authority b: %+v", b)
	}
}

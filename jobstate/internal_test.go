package crawler

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// TestStatsRestoreAddsUpRuns saves a run's statistics as a state does
// (through JSON) and continues them in a new Stats, as a resumed run does.
func TestStatsRestoreAddsUpRuns(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := t0
	now := func() time.Time { return clock }

	first := newStats(now)
	first.start()
	first.fetched("http://a.test", 200, 100)
	first.fetched("http://a.test", 404, 10)
	first.item()
	first.duplicate()
	first.skipped(&skiplog.Record{URL: "http://a.test/x", Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
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
	second := newStats(now)
	second.start()
	skips := skiplog.Summary{}
	skips.Add(&skiplog.Record{URL: "http://a.test/x", Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
	skips.Add(&skiplog.Record{URL: "http://b.test/y", Authority: "http://b.test", Reason: skiplog.FetchError})
	second.restore(&saved, skips, 2)
	second.fetched("http://b.test", 200, 50)
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

// TestDirStateRoundTrip stores every kind of record, reopens the state
// and reads them back, with the crawl's reader and with ReadState.
func TestDirStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	job := JobState{Runs: 2, Started: at, LastStart: at.Add(time.Hour), Running: true, Agent: "HeedBot", Seeds: []string{"http://a.test/"}}
	stats := &Snapshot{Started: at, Elapsed: time.Minute, Runs: 2, Pages: 7, Items: 5,
		Statuses: map[int]int64{200: 7}, Skipped: map[skiplog.Reason]int64{}, Deferred: map[string]int64{},
		Robots: map[string]int64{"available": 1}, Dropped: map[string]int64{}}
	pace := map[string]politeness.AuthorityState{
		"http://a.test": {Interval: time.Second, CrawlDelay: 2 * time.Second, Backoff: 4 * time.Second, Failures: 2, LastStart: at, PausedUntil: at.Add(time.Minute)},
	}
	robotsRec := &middleware.RobotsRecord{Authority: "http://a.test", URL: "http://a.test/robots.txt", FetchedAt: at, Status: 200,
		State: "available", Body: []byte("User-agent: *\nDisallow: /x/\nCrawl-delay: 2\n"), Limit: 500 << 10}

	s, err := OpenDirState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenFrontier(); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveRobots(robotsRec); err != nil {
		t.Fatal(err)
	}
	for seq, a := range map[uint64]string{1: "http://a.test", 300: "http://b.test"} {
		if err := s.SaveBudget(seq, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Checkpoint(&Checkpoint{Job: job, Stats: stats, Pacing: pace}); err != nil {
		t.Fatal(err)
	}
	if w, err := s.Skips().Write(&skiplog.Record{URL: "http://a.test/x/1", Authority: "http://a.test", Reason: skiplog.RobotsDisallow, Time: at}); !w || err != nil {
		t.Fatal(w, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = OpenDirState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenFrontier(); err != nil {
		t.Fatal(err)
	}
	gotJob, err := s.Job()
	if err != nil || !reflect.DeepEqual(jsonOf(t, gotJob), jsonOf(t, job)) {
		t.Errorf("job %+v (%v), want %+v", gotJob, err, job)
	}
	gotStats, err := s.Stats()
	if err != nil || gotStats == nil || gotStats.Pages != 7 || gotStats.Elapsed != time.Minute || gotStats.Statuses[200] != 7 {
		t.Errorf("stats %+v (%v)", gotStats, err)
	}
	gotPace, err := s.Pacing()
	if err != nil || len(gotPace) != 1 || !samePacing(gotPace["http://a.test"], pace["http://a.test"]) {
		t.Errorf("pacing %+v (%v), want %+v", gotPace, err, pace)
	}
	gotBudget, err := s.Budget()
	if err != nil || !reflect.DeepEqual(gotBudget, map[uint64]string{1: "http://a.test", 300: "http://b.test"}) {
		t.Errorf("budget %v (%v)", gotBudget, err)
	}
	var recs []*middleware.RobotsRecord
	if err := s.ForEachRobots(func(r *middleware.RobotsRecord) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || !reflect.DeepEqual(jsonOf(t, recs[0]), jsonOf(t, robotsRec)) {
		t.Errorf("robots records %+v", recs)
	}
	s.Close()

	rep, err := ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Job.Runs != 2 || rep.Stats.Pages != 7 || rep.Skipped.Total != 1 || len(rep.Robots) != 1 ||
		rep.Robots[0].CrawlDelay != 2*time.Second || rep.Robots[0].State != "available" || !rep.Robots[0].FetchedAt.Equal(at) {
		t.Errorf("report %+v", rep)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

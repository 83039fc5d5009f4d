package jobstate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// TestDirStateRoundTrip stores every kind of record, reopens the state
// and reads them back, with the crawl's reader and with Read.
func TestDirStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	job := Job{Runs: 2, Started: at, LastStart: at.Add(time.Hour), Running: true, Agent: "HeedBot", Seeds: []string{"http://a.test/"}}
	stats := &stats.Snapshot{Started: at, Elapsed: time.Minute, Runs: 2, Pages: 7, Items: 5,
		Statuses: map[int]int64{200: 7}, Skipped: map[skiplog.Reason]int64{}, Deferred: map[string]int64{},
		Robots: map[string]int64{"available": 1}, Dropped: map[string]int64{}}
	pace := map[string]politeness.AuthorityState{
		"http://a.test": {Interval: time.Second, CrawlDelay: 2 * time.Second, Backoff: 4 * time.Second, Failures: 2, LastStart: at, PausedUntil: at.Add(time.Minute)},
	}
	robotsRec := &middleware.RobotsRecord{Authority: "http://a.test", URL: "http://a.test/robots.txt", FetchedAt: at, Status: 200,
		State: "available", Body: []byte("User-agent: *\nDisallow: /x/\nCrawl-delay: 2\n"), Limit: 500 << 10}

	s, err := Open(dir)
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

	s, err = Open(dir)
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

	rep, err := Read(dir)
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

// TestFirstCheckpointCutBeforeItsRecord: a process killed during its
// first checkpoint, after the frontier recorded checkpoint 1 and before
// integrity.json was written, leaves a healthy state that is accepted;
// a frontier further ahead of a missing record has lost that record and
// is refused.
func TestFirstCheckpointCutBeforeItsRecord(t *testing.T) {
	dir := t.TempDir()
	checkpoint := func() {
		t.Helper()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.OpenFrontier(); err != nil {
			t.Fatal(err)
		}
		if err := s.Checkpoint(&Checkpoint{Job: Job{Runs: 1, Agent: "HeedBot"}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, stateCheckName)); err != nil {
			t.Fatal(err)
		}
	}
	checkpoint()
	if n, err := checkState(dir); err != nil || n != 1 {
		t.Fatalf("checkpoint 1 without its record: checkpoint %d, %v; want it accepted", n, err)
	}
	checkpoint()
	var damage *DamageError
	if _, err := checkState(dir); !errors.As(err, &damage) || !strings.Contains(err.Error(), "integrity record") {
		t.Fatalf("a later checkpoint without its record: %v; want it refused as damage", err)
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

func TestStateFlagsRefuseWhatCannotResume(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"json array feed", []string{"--out", filepath.Join(dir, "f.json")}, "JSON array"},
		{"gzip feed", []string{"--out", filepath.Join(dir, "f.jsonl.gz")}, "gzip"},
		{"skip log elsewhere", []string{"--skiplog", filepath.Join(dir, "s.jsonl")}, filepath.Join(state, "skipped.jsonl")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"crawl", "--agent", "HeedBot", "--state", state, "http://127.0.0.1:1/"}, tt.args...)
			code, out, errOut := runHeed(t, args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want 2 with %q\n%s%s", code, tt.want, out, errOut)
			}
		})
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("a refused command made the state directory")
	}
}

func TestStatusErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"status"}, 2, "needs --state"},
		{[]string{"status", "--state", empty}, 2, "not a heed crawl state"},
		{[]string{"status", "--state", empty, "extra"}, 2, "no arguments"},
	} {
		code, out, errOut := runHeed(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", tt.args, code, tt.code, tt.want, out, errOut)
		}
	}

	// A state in use by a crawl.
	dir := t.TempDir()
	s, err := jobstate.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenFrontier(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runHeed(t, "status", "--state", dir)
	s.Close()
	if code != 0 || !strings.Contains(out, "job: running: a crawl (pid") || !strings.Contains(out, "no status snapshot yet") {
		t.Errorf("status of a state in use: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runHeed(t, "status", "--state", dir); code != 0 || !strings.Contains(out, "job: never started") {
		t.Errorf("status once the crawl is gone: exit %d\n%s%s", code, out, errOut)
	}
}

func TestFormatStatus(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rep := &jobstate.Report{
		Dir:   "job1",
		Job:   jobstate.Job{Runs: 3, Started: now.Add(-time.Hour), LastStart: now.Add(-time.Minute), Stopped: now.Add(-30 * time.Second), Agent: "HeedBot"},
		Stats: &stats.Snapshot{Pages: 120, Items: 100, Elapsed: 40 * time.Second},
		Frontier: durable.Status{
			Stats: frontier.Stats{Queued: 7, Seen: 200, ByAuthority: map[string]int{"http://a.test": 5, "http://b.test": 2}},
			Holds: map[string]time.Time{"http://b.test": now.Add(time.Minute)},
		},
		Robots: []jobstate.RobotsReport{
			{Authority: "http://a.test", State: "available", Status: 200, FetchedAt: now.Add(-time.Hour), CrawlDelay: 2 * time.Second},
			{Authority: "http://b.test", State: "unreachable", Status: 503, FetchedAt: now.Add(-time.Minute), Failures: 4,
				FirstFailure: now.Add(-5 * time.Minute), RetryAt: now.Add(time.Minute)},
		},
	}
	rep.Skipped.Add(&skiplog.Record{URL: "http://a.test/x", Authority: "http://a.test", Reason: skiplog.RobotsDisallow})
	var b bytes.Buffer
	if err := formatStatus(&b, rep, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"job: paused", "7 URLs queued", "runs: 3", "progress: 120 pages, 100 items",
		"http://a.test  5\n", "http://b.test  2  on hold until",
		"robots-disallow", "available (200)", "crawl-delay 2s", "unreachable (503)", "4 tries since", "next try",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	rep.Job.Running = true
	b.Reset()
	formatStatus(&b, rep, now)
	if !strings.Contains(b.String(), "stopped without closing (killed?)") {
		t.Errorf("a killed job:\n%s", b.String())
	}
	rep.Job.Running, rep.Job.Complete = false, true
	b.Reset()
	formatStatus(&b, rep, now)
	if !strings.Contains(b.String(), "job: complete") {
		t.Errorf("a complete job:\n%s", b.String())
	}
}

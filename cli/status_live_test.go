package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
)

// heed status reports a job while its crawl runs, from the status
// snapshot the crawl publishes: running, by which process, since when,
// how fresh, and its counts. Once the process is killed -9, the snapshot
// it left is said to be stale and the job killed, not running.
func TestStatusOfARunningJob(t *testing.T) {
	bin := buildHeed(t)
	// 2 hosts of 30 pages at one request per 200 ms each: at least 6 s
	// of crawling, whatever the load.
	j := newStateJob(t, bin, testweb.Generated{Hosts: 2, PagesPerHost: 30, PageBytes: 512, LinksPerPage: 4, Seed: 9}, 200*time.Millisecond)
	cmd := j.command()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if l, err := jobstate.ReadLive(j.dir); err == nil && l.Running && l.Pages >= 3 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the crawl ended before it published a snapshot with pages: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot with pages within a minute:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	host, _ := os.Hostname()
	pid := cmd.Process.Pid
	code, stdout, stderr := runHeed(t, "status", "--state", j.dir)
	if code != 0 {
		t.Fatalf("status of a running job: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		fmt.Sprintf("job: running: pid %d on %s, this run since", pid, host), "(run 1 of the job, agent HeedBot)",
		"status snapshot: ", "progress: ", " pages (", "frontier: ", "queued, ", "authorities with URLs queued",
		"queued by authority:", "skipped: ", "errors: ", "robots.txt pending: none",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status of a running job lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "stale") {
		t.Errorf("a running job's fresh snapshot called stale:\n%s", stdout)
	}
	code, stdout, stderr = runHeed(t, "status", "--state", j.dir, "--json")
	var rep jobstate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 {
		t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if !rep.Running || rep.PID != pid || rep.Live == nil || rep.Live.PID != pid || rep.Live.Host != host || !rep.Live.Running ||
		rep.Live.Pages < 3 || rep.Live.Queued+rep.Live.InFlight == 0 || rep.Job.Runs != 1 {
		t.Fatalf("status --json of a running job: %s", stdout)
	}

	cmd.Process.Kill() // kill -9
	<-exited
	exited <- nil // for the deferred cleanup
	code, stdout, stderr = runHeed(t, "status", "--state", j.dir)
	if code != 0 {
		t.Fatalf("status after kill -9: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"job: stopped without closing (killed?)",
		fmt.Sprintf("status snapshot: stale: written by pid %d on %s", pid, host), "that process is gone",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status after kill -9 lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "job: running") {
		t.Errorf("a killed job reported running:\n%s", stdout)
	}
}

// What heed status says of a snapshot: its queue's most queued
// authorities, the authorities waiting on robots.txt, and a snapshot not
// updated for long although its crawl holds the state.
func TestFormatRunning(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	l := &jobstate.Live{
		PID: 42, Host: "crawler1", Started: now.Add(-time.Hour), Updated: now.Add(-time.Second), Running: true,
		Job:   jobstate.Job{Runs: 2, Agent: "HeedBot"},
		Pages: 10, Bytes: 2048, Queued: 30, InFlight: 1, Authorities: 3,
		TopQueued:     []jobstate.AuthorityQueue{{Authority: "http://a.test", Queued: 20}, {Authority: "http://b.test", Queued: 10}},
		Skipped:       map[skiplog.Reason]int64{skiplog.Offsite: 2, skiplog.RobotsDisallow: 1},
		Errors:        jobstate.LiveErrors{HTTP: 4, Failed: 1},
		RobotsPending: 1, RobotsWaiting: []string{"http://c.test"},
	}
	rep := &jobstate.Report{Dir: "job1", Running: true, PID: 42, Live: l, Job: l.Job}
	var b bytes.Buffer
	formatRunning(&b, rep, now)
	for _, want := range []string{
		"job: running: pid 42 on crawler1, this run since 2026-03-01T11:00:00Z, 1h0m0s ago (run 2 of the job, agent HeedBot)",
		"status snapshot: 2026-03-01T11:59:59Z, 1s ago\n",
		"progress: 10 pages (2.0 KiB)", "frontier: 30 queued, 1 in flight, 3 authorities with URLs queued",
		"queued by authority (the 2 most queued):", "http://a.test  20\n", "skipped: 3 URLs: offsite=2 robots-disallow=1",
		"errors: 4 responses with status 400 or more, 1 URLs whose fetch failed",
		"robots.txt pending: 1 authorities unreachable, retried while their URLs wait: http://c.test\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	l.Updated = now.Add(-time.Minute)
	b.Reset()
	formatRunning(&b, rep, now)
	if !strings.Contains(b.String(), "not updated for over 15s although the crawl holds the state") {
		t.Errorf("an old snapshot of a crawl that holds the state:\n%s", b.String())
	}
	rep.Live = nil
	b.Reset()
	formatRunning(&b, rep, now)
	if !strings.Contains(b.String(), "a crawl (pid 42) holds the state and has published no status snapshot yet") {
		t.Errorf("no snapshot yet:\n%s", b.String())
	}
}

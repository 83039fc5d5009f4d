package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/skiplog"
)

// lockedBuffer lets the test read what run prints while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func readObservations(t *testing.T, path string) []Observation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var obs []Observation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var o Observation
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("incomplete line %q: %v", sc.Text(), err)
		}
		obs = append(obs, o)
	}
	return obs
}

func readSkipLog(t *testing.T, path string) map[skiplog.Reason]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := map[skiplog.Reason]int{}
	if err := skiplog.Read(f, func(r *skiplog.Record) error {
		if r.Reason == skiplog.RobotsDisallow && (r.Robots == nil || r.Robots.Rule == "") {
			t.Errorf("%s: no robots.txt evidence", r.URL)
		}
		n[r.Reason]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCollectorCompletes runs the job to the end on the generated site:
// every page observed, every disallowed URL in the skip log with its rule.
func TestCollectorCompletes(t *testing.T) {
	dir := t.TempDir()
	out, skips := filepath.Join(dir, "obs.jsonl"), filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout lockedBuffer
	if err := run(ctx, []string{"-out", out, "-skiplog", skips, "-delay", "5ms", "-stats", "0"}, &stdout); err != nil {
		t.Fatal(err)
	}
	obs := readObservations(t, out)
	if len(obs) != 120 {
		t.Errorf("%d observations, want the site's 120 pages", len(obs))
	}
	hosts := map[string]int{}
	for _, o := range obs {
		hosts[o.Authority]++
		if o.Title == "" || o.Words == 0 {
			t.Errorf("empty observation %+v", o)
		}
	}
	if len(hosts) != 3 {
		t.Errorf("observations from %d hosts", len(hosts))
	}
	reasons := readSkipLog(t, skips)
	if reasons[skiplog.RobotsDisallow] != 18 || len(reasons) != 1 {
		t.Errorf("skip log reasons %v, want 18 robots-disallow", reasons)
	}
	for _, want := range []string{"120 observations in " + out, "first robots-disallow: ", "robots-disallow        18"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no %q in\n%s", want, stdout.String())
		}
	}
}

// TestCollectorStopsGracefully cancels the job mid-way, as Ctrl-C does:
// the output holds only complete observations and every URL still queued
// is in the skip log as interrupted.
func TestCollectorStopsGracefully(t *testing.T) {
	dir := t.TempDir()
	out, skips := filepath.Join(dir, "obs.jsonl"), filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-out", out, "-skiplog", skips, "-delay", "20ms", "-stats", "50ms"}, &stdout)
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(out)
		if bytes.Count(b, []byte("\n")) >= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress in a minute:\n%s", stdout.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	obs := readObservations(t, out)
	reasons := readSkipLog(t, skips)
	if len(obs) >= 120 || reasons[skiplog.Interrupted] == 0 {
		t.Errorf("%d observations, %d interrupted: the job was not stopped mid-way", len(obs), reasons[skiplog.Interrupted])
	}
	if !strings.Contains(stdout.String(), "stopped: ") || !strings.Contains(stdout.String(), "as interrupted") {
		t.Errorf("no stop notice in\n%s", stdout.String())
	}
}

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

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/skiplog"
)

// lockedBuffer lets the test read what the program prints while it runs.
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

// reasons counts a skip log's records by reason; every robots.txt
// exclusion carries its rule.
func reasons(t *testing.T, path string) map[skiplog.Reason]int {
	t.Helper()
	n := map[skiplog.Reason]int{}
	for u, r := range heedtest.ReadSkipLog(t, path) {
		if r.Reason == skiplog.RobotsDisallow && (r.Robots == nil || r.Robots.Rule == "") {
			t.Errorf("%s: no robots.txt evidence", u)
		}
		n[r.Reason]++
	}
	return n
}

func site(t *testing.T) *heedtest.Web {
	return heedtest.NewGenerated(t, heedtest.Generated{Hosts: 3, PagesPerHost: 40, PageBytes: 1500, LinksPerPage: 4,
		CrossHostFraction: 0.2, DisallowFraction: 0.15, Seed: 42})
}

// TestCollectorCompletes runs the job to the end on the generated site:
// every page observed, every disallowed URL in the skip log with its rule.
func TestCollectorCompletes(t *testing.T) {
	s := site(t)
	dir := t.TempDir()
	out, skips := filepath.Join(dir, "obs.jsonl"), filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr lockedBuffer
	args := append([]string{"crawl", "--out", out, "--skiplog", skips, "--delay", "5ms", "--progress", "never"}, s.CrawlArgs()...)
	if code := newApp(&stdout, &stderr).Run(ctx, args); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
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
	if r := reasons(t, skips); r[skiplog.RobotsDisallow] != 18 || len(r) != 1 {
		t.Errorf("skip log reasons %v, want 18 robots-disallow", r)
	}
	for _, want := range []string{"items: 120 exported", "robots-disallow        18", "items: " + out} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no %q in\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "first robots-disallow: ") {
		t.Errorf("no note of the first robots-disallow in\n%s", stderr.String())
	}
}

// TestCollectorStopsGracefully cancels the job mid-way, as Ctrl-C does:
// exit status 130, the output holds only complete observations and every
// URL still queued is in the skip log as interrupted.
func TestCollectorStopsGracefully(t *testing.T) {
	s := site(t)
	dir := t.TempDir()
	out, skips := filepath.Join(dir, "obs.jsonl"), filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		args := append([]string{"crawl", "--out", out, "--skiplog", skips, "--delay", "20ms", "--stats-interval", "50ms", "--progress", "never"}, s.CrawlArgs()...)
		done <- newApp(&stdout, &stderr).Run(ctx, args)
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
	if code := <-done; code != 130 {
		t.Errorf("exit %d, want 130\n%s%s", code, stdout.String(), stderr.String())
	}
	obs := readObservations(t, out)
	r := reasons(t, skips)
	if len(obs) >= 120 || r[skiplog.Interrupted] == 0 {
		t.Errorf("%d observations, %d interrupted: the job was not stopped mid-way", len(obs), r[skiplog.Interrupted])
	}
	if !strings.Contains(stdout.String(), "crawl interrupted") || !strings.Contains(stderr.String(), " msg=stats pages=") {
		t.Errorf("no stop notice or no statistics line:\n%s%s", stdout.String(), stderr.String())
	}
}

// TestCollectorDemo runs the program's own command: the generated site,
// crawled with crawl's flags.
func TestCollectorDemo(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr lockedBuffer
	if code := newApp(&stdout, &stderr).Run(context.Background(), []string{"demo", "--delay", "1ms", "--progress", "never"}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if n := len(readObservations(t, "observations.jsonl")); n != 120 {
		t.Errorf("%d observations", n)
	}
}

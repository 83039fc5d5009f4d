package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/skiplog"
)

// TestREADMESamplesAreTheCatalogues: the samples in README.md come from
// one run of this catalogue: one port throughout, and the skip-log
// record is the one a crawl of site.go writes (URL, reason, referrer,
// robots.txt line, rule and group), with the authority put back.
func TestREADMESamplesAreTheCatalogues(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]bool{}
	for _, m := range regexp.MustCompile(`http://127\.0\.0\.1:(\d+)`).FindAllStringSubmatch(string(readme), -1) {
		ports[m[1]] = true
	}
	if len(ports) != 1 {
		t.Errorf("the README's samples name %d ports (%v): they come from different runs", len(ports), ports)
	}
	m := regexp.MustCompile("(?s)`skipped.jsonl`:\\s*```json\\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("no skipped.jsonl sample in README.md")
	}
	var sample []skiplog.Record
	for _, line := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		var r skiplog.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("README skip-log line %q: %v", line, err)
		}
		sample = append(sample, r)
	}

	site := newCatalogue()
	defer site.Close()
	dir := t.TempDir()
	skips := filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	args := []string{"crawl", "--skiplog", skips, "--delay", "0", "--progress", "never", site.URL + "/catalogue"}
	if code := newApp(&stdout, &stderr).Run(ctx, args); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	got := heedtest.ReadSkipLog(t, skips)
	if len(sample) != len(got) {
		t.Errorf("README shows %d skip-log records, a run writes %d", len(sample), len(got))
	}
	for _, s := range sample {
		old := s.Authority
		fix := func(u string) string { return strings.Replace(u, old, site.URL, 1) }
		r := got[fix(s.URL)]
		if r == nil {
			t.Errorf("README record for %s: a run of the catalogue writes none", s.URL)
			continue
		}
		if r.Reason != s.Reason || r.Referrer != fix(s.Referrer) || r.Depth != s.Depth || (r.Robots == nil) != (s.Robots == nil) {
			t.Errorf("README record %+v, a run writes %+v", s, *r)
			continue
		}
		if s.Robots != nil && (r.Robots.URL != fix(s.Robots.URL) || r.Robots.Line != s.Robots.Line || r.Robots.Rule != s.Robots.Rule ||
			strings.Join(r.Robots.Group, " ") != strings.Join(s.Robots.Group, " ")) {
			t.Errorf("README robots evidence %+v, a run's %+v", *s.Robots, *r.Robots)
		}
	}
}

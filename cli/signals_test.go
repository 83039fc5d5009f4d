package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

func decodeLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var got []T
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%v in:\n%s", err, out)
		}
		got = append(got, v)
	}
	return got
}

func TestRobotsCheckPurpose(t *testing.T) {
	dir := t.TempDir()
	robotsPath := filepath.Join(dir, "robots.txt")
	os.WriteFile(robotsPath, []byte(strings.Join(testweb.UsageRobotsTxt, "\n")+"\n"), 0o644)
	code, out, errOut := runHeed(t, "robots", "check", "--agent", "HeedBot", "--robots", robotsPath, "--purpose", "train-ai,search", "--json",
		"http://a.test/", "http://a.test/open/x", "http://a.test/conflict/x", "http://a.test/private/x")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (/private/ is disallowed)\n%s%s", code, out, errOut)
	}
	got := decodeLines[checkResult](t, out)
	want := []struct {
		trainAI, search string
		line            int
	}{
		{"n", "unknown", 4},
		{"y", "unknown", 5},
		{"n", "unknown", 7}, // identical paths: the n of line 7 wins over line 6
		{"unknown", "unknown", 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results", len(got))
	}
	for i, w := range want {
		u := got[i].Usage
		if len(u) != 2 || u[0].Purpose != "train-ai" || u[0].Preference != w.trainAI || u[0].Line != w.line || u[1].Preference != w.search {
			t.Errorf("%s: usage %+v, want train-ai=%s (line %d) search=%s", got[i].URL, u, w.trainAI, w.line, w.search)
		}
	}
	_, text, _ := runHeed(t, "robots", "check", "--agent", "HeedBot", "--robots", robotsPath, "--purpose", "train-ai", "http://a.test/conflict/x")
	if !strings.Contains(text, "usage train-ai: n (line 7: Content-Usage: /conflict/ train-ai=n)") {
		t.Errorf("text output:\n%s", text)
	}
	if code, _, _ := runHeed(t, "robots", "check", "--agent", "HeedBot", "--robots", robotsPath, "--purpose", "train-everything", "http://a.test/"); code != 2 {
		t.Errorf("unknown purpose: exit %d, want 2", code)
	}
}

func TestRobotsCheckNeedsAbsoluteURLs(t *testing.T) {
	for _, u := range []string{"/a", "example.com/a", "//example.com/a", "ftp://example.com/a", "http:///a"} {
		code, out, errOut := runHeed(t, "robots", "check", "--agent", "HeedBot", u)
		if code != 2 || strings.Contains(out, "ALLOWED") {
			t.Errorf("%q: exit %d, want 2 and no verdict\n%s%s", u, code, out, errOut)
		}
	}
}

func TestRobotsAgentsWithDigits(t *testing.T) {
	dir := t.TempDir()
	robotsPath := filepath.Join(dir, "robots.txt")
	os.WriteFile(robotsPath, []byte("User-agent: *\nAllow: /\n\nUser-agent: MJ12bot\nDisallow: /\n"), 0o644)
	code, out, _ := runHeed(t, "robots", "check", "--agent", "MJ12bot", "--robots", robotsPath, "http://a.test/x")
	if code != 1 || !strings.Contains(out, "DISALLOWED") || !strings.Contains(out, "line 5: Disallow: /") {
		t.Errorf("check MJ12bot: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "RFC-strict") || !strings.Contains(out, `Google's open-source parser reads it as "MJ"`) {
		t.Errorf("no note on how others read MJ12bot:\n%s", out)
	}
	code, out, _ = runHeed(t, "robots", "lint", "--json", robotsPath)
	if code != 1 || !strings.Contains(out, `"code":"user-agent-with-digits"`) {
		t.Errorf("lint: exit %d\n%s", code, out)
	}
	// A crawl still refuses a token RFC 9309 does not allow.
	if code, _, _ := runHeed(t, "crawl", "--agent", "MJ12bot", "http://127.0.0.1:1/"); code != 2 {
		t.Errorf("crawl with MJ12bot: exit %d, want 2", code)
	}
}

func TestRobotsLintSeveralFilesAndJSONKeys(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /x\n"), 0o644)
	os.WriteFile(b, []byte("User-agent: *\nDisallow: private\nContent-Usage: train-ai=maybe\n"), 0o644)
	code, out, _ := runHeed(t, "robots", "lint", "--json", a, b)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var raw []map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, m)
	}
	seen := map[string]string{}
	for _, m := range raw {
		for _, k := range []string{"file", "line", "code", "severity", "message"} {
			if _, ok := m[k]; !ok {
				t.Errorf("finding without %q: %v", k, m)
			}
		}
		for k := range m {
			if k != strings.ToLower(k) {
				t.Errorf("key %q is not in check's key style", k)
			}
		}
		seen[m["code"].(string)] = m["file"].(string)
	}
	if seen["non-group-line-merges-groups"] != a || seen["path-without-leading-slash"] != b || seen["invalid-content-usage"] != b {
		t.Errorf("findings by file: %v", seen)
	}
	if code, _, _ := runHeed(t, "robots", "lint", a, filepath.Join(dir, "missing.txt")); code != 2 {
		t.Errorf("a missing file among several: exit %d, want 2", code)
	}
}

// TestCrawlSignalFlags runs heed crawl on the testweb signals site with
// the page-directive and usage flags and checks the skip log's reasons
// against the site's hand-written oracle.
func TestCrawlSignalFlags(t *testing.T) {
	site, err := testweb.StartSignals()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := t.TempDir()
	skipPath := filepath.Join(dir, "skipped.jsonl")
	args := []string{"crawl", "--agent", testweb.SignalsAgent, "--delay", "0", "--skiplog", skipPath,
		"--respect", "noindex", "--purpose", "train-ai", "--rel-nofollow", "--out", filepath.Join(dir, "items.jsonl")}
	args = append(args, site.Seeds()...)
	code, out, errOut := runHeed(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	f, err := os.Open(skipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]skiplog.Reason{}
	if err := skiplog.Read(f, func(r *skiplog.Record) error { got[r.URL] = r.Reason; return nil }); err != nil {
		t.Fatal(err)
	}
	var want []testweb.SignalSkip
	for _, w := range testweb.SignalsOracle(testweb.SignalPolicy{RelNofollow: true, Respect: []string{"noindex"}, Purposes: []string{"train-ai"}}) {
		// heed crawl's own spider emits an item for HTML pages only: a
		// text page has no item to withhold, so no page-directive record.
		if w.Path == "/doc.txt" {
			continue
		}
		want = append(want, w)
	}
	if len(got) != len(want) {
		t.Errorf("%d records, want %d: %v", len(got), len(want), got)
	}
	for _, w := range want {
		u := site.Host(w.Host).Authority + w.Path
		if string(got[u]) != w.Reason {
			t.Errorf("%s: %q, want %s", u, got[u], w.Reason)
		}
	}
}

package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// feedCrawl crawls the test site s into the feed out with extra flags.
func feedCrawl(t *testing.T, srv *httptest.Server, out string, extra ...string) (int, string, string) {
	t.Helper()
	args := []string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--retries", "0", "-o", out}
	if !strings.Contains(strings.Join(extra, " "), "--state") {
		args = append(args, "--skiplog", "")
	}
	args = append(args, extra...)
	return runHeed(t, append(args, srv.URL+"/")...)
}

// TestFeedAppendAndOverwriteAreExplicit: an existing non-empty feed is
// refused unless --append (items added) or --overwrite (replaced).
func TestFeedAppendAndOverwriteAreExplicit(t *testing.T) {
	srv := httptest.NewServer(&site{})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "items.jsonl")
	old := "{\"url\":\"earlier\"}\n"
	os.WriteFile(out, []byte(old), 0o644)

	code, _, errOut := feedCrawl(t, srv, out)
	if b, _ := os.ReadFile(out); code != 2 || !strings.Contains(errOut, "--append") || !strings.Contains(errOut, "--overwrite") || string(b) != old {
		t.Fatalf("existing feed: exit %d %q; file now %q", code, errOut, b)
	}
	if code, _, errOut := feedCrawl(t, srv, out, "--append"); code != 0 {
		t.Fatalf("--append: exit %d %s", code, errOut)
	}
	b, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(b), old) || strings.Count(string(b), "\n") != 4 {
		t.Errorf("--append: the feed is\n%s\nwant the earlier line then 3 items", b)
	}
	if code, _, errOut := feedCrawl(t, srv, out, "--overwrite"); code != 0 {
		t.Fatalf("--overwrite: exit %d %s", code, errOut)
	}
	b, _ = os.ReadFile(out)
	if strings.Contains(string(b), "earlier") || strings.Count(string(b), "\n") != 3 {
		t.Errorf("--overwrite: the feed is\n%s\nwant only the 3 new items", b)
	}
	// An empty file is no feed to lose.
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	if code, _, errOut := feedCrawl(t, srv, empty); code != 0 {
		t.Errorf("empty existing file: exit %d %s", code, errOut)
	}
	for _, tc := range []struct {
		out  string
		args []string
		want string
	}{
		{out, []string{"--append", "--overwrite"}, "choose one"},
		{filepath.Join(dir, "a.json"), []string{"--append"}, "--append"},
		{filepath.Join(dir, "a.jsonl.gz"), []string{"--append"}, "--append"},
	} {
		if code, _, errOut := feedCrawl(t, srv, tc.out, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s %v: exit %d %q", tc.out, tc.args, code, errOut)
		}
	}
	if code, _, errOut := runHeed(t, "crawl", "--agent", "HeedBot", "--append", srv.URL+"/"); code != 2 || !strings.Contains(errOut, "--out") {
		t.Errorf("--append without --out: exit %d %q", code, errOut)
	}
}

// TestFeedOfStateJob: a new job follows the same rule; a job that ran
// before appends to its feed when resumed, and refuses --overwrite.
func TestFeedOfStateJob(t *testing.T) {
	srv := httptest.NewServer(&site{})
	defer srv.Close()
	dir := t.TempDir()
	out, state := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "job")
	os.WriteFile(out, []byte("{\"url\":\"earlier\"}\n"), 0o644)
	if code, _, errOut := feedCrawl(t, srv, out, "--state", state); code != 2 || !strings.Contains(errOut, "--append") {
		t.Fatalf("new job, existing feed: exit %d %q", code, errOut)
	}
	if code, _, errOut := feedCrawl(t, srv, out, "--state", state, "--overwrite"); code != 0 {
		t.Fatalf("new job --overwrite: exit %d %s", code, errOut)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), "earlier") || strings.Count(string(b), "\n") != 3 {
		t.Errorf("new job --overwrite: the feed is\n%s", b)
	}
	if code, _, errOut := feedCrawl(t, srv, out, "--state", state, "--overwrite"); code != 2 || !strings.Contains(errOut, "earlier runs") {
		t.Errorf("resumed job --overwrite: exit %d %q", code, errOut)
	}
	code, stdout, errOut := feedCrawl(t, srv, out, "--state", state)
	if code != 0 || !strings.Contains(stdout, "already complete") {
		t.Errorf("resumed job: exit %d\n%s%s", code, stdout, errOut)
	}
	if b2, _ := os.ReadFile(out); string(b2) != string(b) {
		t.Errorf("resuming a complete job changed its feed:\n%s", b2)
	}
}

// TestSummaryJSON: --summary-json holds the printed summary's figures,
// and may not be another output's file.
func TestSummaryJSON(t *testing.T) {
	srv := httptest.NewServer(&site{})
	defer srv.Close()
	dir := t.TempDir()
	sumPath := filepath.Join(dir, "summary.json")
	args := []string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--retries", "0",
		"--skiplog", filepath.Join(dir, "skipped.jsonl"), "-o", filepath.Join(dir, "items.jsonl"),
		"--exclude", "/b$", "--max-body", "1KiB", "--summary-json", sumPath, srv.URL + "/"}
	code, out, errOut := runHeed(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Outcome string `json:"outcome"`
		Stats   struct {
			Pages     int64            `json:"pages"`
			Bytes     int64            `json:"bytes"`
			Statuses  map[string]int64 `json:"statuses"`
			Truncated int64            `json:"truncated"`
			Items     int64            `json:"items"`
		} `json:"stats"`
		Skipped struct {
			Total    int            `json:"total"`
			ByReason map[string]int `json:"by_reason"`
		} `json:"skipped"`
		SkipLog string `json:"skip_log"`
		Items   string `json:"items"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	num := func(re string) int64 {
		m := regexp.MustCompile(re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %s in\n%s", re, out)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	if doc.Outcome != "complete" || doc.Stats.Pages != num(`(?m)^pages: (\d+)`) || doc.Stats.Statuses["200"] != num(`statuses: 200=(\d+)`) ||
		doc.Stats.Statuses["500"] != num(`500=(\d+)`) || doc.Stats.Truncated != num(`cut at the body limit: (\d+)`) ||
		doc.Stats.Items != num(`items: (\d+) exported`) || int64(doc.Skipped.Total) != num(`skipped: (\d+) URLs`) ||
		doc.Skipped.ByReason["filter"] != 1 || doc.SkipLog != filepath.Join(dir, "skipped.jsonl") || doc.Items != filepath.Join(dir, "items.jsonl") {
		t.Errorf("summary JSON does not match the printed summary:\n%s\n%s", b, out)
	}
	for _, other := range []string{"--skiplog", "-o"} {
		a := append([]string{}, args...)
		for i := range a {
			if a[i] == other {
				a[i+1] = sumPath
			}
		}
		if code, _, errOut := runHeed(t, a...); code != 2 || !strings.Contains(errOut, "same file") {
			t.Errorf("--summary-json same as %s: exit %d %q", other, code, errOut)
		}
	}
}

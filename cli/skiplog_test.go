package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/skiplog"
)

func copyFixture(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "skiplog", "testdata", "merge", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	writeFile(t, p, string(b))
	return p
}

func TestSkiplogMerge(t *testing.T) {
	dir := t.TempDir()
	a, b := copyFixture(t, dir, "a.jsonl"), copyFixture(t, dir, "b.jsonl")
	torn, back := copyFixture(t, dir, "torn.jsonl"), copyFixture(t, dir, "backwards.jsonl")
	out := filepath.Join(dir, "merged.jsonl")

	// OUT as the first argument, and as --out: the same log and summary.
	code, stdout, stderr := runHeed(t, "skiplog", "merge", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"skipped: 6 URLs", "read 8 records from 2 logs", "2 duplicates dropped", "fetch-error=1", "robots-disallow=1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := skiplog.Read(strings.NewReader(string(first)), func(*skiplog.Record) error { n++; return nil }); err != nil || n != 6 {
		t.Fatalf("merged log: %d records, %v", n, err)
	}
	out2 := filepath.Join(dir, "merged2.jsonl")
	if code, _, stderr := runHeed(t, "skiplog", "merge", "--out", out2, a, b); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, stderr)
	}
	if second, _ := os.ReadFile(out2); string(second) != string(first) {
		t.Errorf("--out wrote another log:\n%s\nvs\n%s", second, first)
	}
	// To stdout: the log on stdout, the summary on stderr.
	code, stdout, stderr = runHeed(t, "skiplog", "merge", "-o", "-", a, b)
	if code != 0 || stdout != string(first) || !strings.Contains(stderr, "skipped: 6 URLs") {
		t.Errorf("-o -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A damaged input: exit 1, the file and line named, OUT untouched and
	// no temporary file left.
	for _, tt := range []struct{ in, want string }{
		{torn, "torn.jsonl line 3: not a complete record"},
		{back, "backwards.jsonl line 3: record earlier than the one before it"},
	} {
		code, _, stderr := runHeed(t, "skiplog", "merge", "--overwrite", out, a, tt.in)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("merge with %s: exit %d, %q; want 1 and %q", tt.in, code, stderr, tt.want)
		}
		if now, _ := os.ReadFile(out); string(now) != string(first) {
			t.Errorf("a failed merge changed %s", out)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".merge-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}

	// A forgotten OUT: the first input is not replaced by the others.
	if code, _, stderr := runHeed(t, "skiplog", "merge", out, a); code != 2 || !strings.Contains(stderr, "--overwrite") {
		t.Errorf("merge into an existing log without --overwrite: exit %d, %q; want 2", code, stderr)
	}
	if now, _ := os.ReadFile(out); string(now) != string(first) {
		t.Errorf("a refused merge changed %s", out)
	}

	// Usage errors: exit 2.
	for _, args := range [][]string{
		{"skiplog", "merge"},
		{"skiplog", "merge", out},
		{"skiplog", "merge", "--out", out},
		{"skiplog", "merge", a, a, b}, // the output is an input
	} {
		if code, _, stderr := runHeed(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s); want 2", args, code, stderr)
		}
	}
	if code, _, stderr := runHeed(t, "skiplog", "merge", "--overwrite", out, filepath.Join(dir, "missing.jsonl")); code != 1 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("a missing input: exit %d, %q", code, stderr)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/cli"
)

func TestDemoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the scenario site")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := newApp(cli.WithOutput(&stdout, &stderr)).Run(context.Background(), []string{"demo", "--dir", dir})
	out, errOut := stdout.String(), stderr.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"pages:", "robots-disallow", "robots-unreachable", "skip log: " + filepath.Join(dir, "skipped.jsonl")} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if empty(filepath.Join(dir, "skipped.jsonl")) || empty(filepath.Join(dir, "pages.jsonl")) {
		t.Error("demo wrote no skip log or no pages")
	}
}

func empty(path string) bool {
	b, _ := os.ReadFile(path)
	return len(b) == 0
}

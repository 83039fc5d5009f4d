package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// heed inventory --out, like crawl --out, refuses a file that exists and
// is not empty before anything is fetched or opened, and replaces it only
// with --overwrite; an empty file is no loss and is written to.
func TestInventoryOutRefusesAnExistingFile(t *testing.T) {
	t.Chdir(t.TempDir()) // the default skip log, skipped.jsonl, goes there
	s := newSitemapServer(t, false)
	dir := t.TempDir()
	for _, name := range []string{"rows.jsonl", "rows.csv", "report.html"} {
		out := filepath.Join(dir, name)
		const before = "a file of the user's\n"
		os.WriteFile(out, []byte(before), 0o644)
		args := []string{"inventory", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never", "--out", out, s.URL + "/"}
		code, _, stderr := runHeed(t, args...)
		if b, _ := os.ReadFile(out); code != 2 || string(b) != before ||
			!strings.Contains(stderr, "--out "+out+" exists and is not empty (21 bytes): add --overwrite to replace it") {
			t.Errorf("%s exists: exit %d, file now %q\n%s", name, code, b, stderr)
		}
		if n := len(s.requested()); n != 0 {
			t.Errorf("%s exists: %d requests made before the refusal", name, n)
		}
		code, stdout, stderr := runHeed(t, append(args, "--overwrite")...)
		if b, _ := os.ReadFile(out); code != 0 || strings.Contains(string(b), before) || !strings.Contains(string(b), s.URL+"/b") {
			t.Errorf("%s --overwrite: exit %d, file %q\n%s%s", name, code, b, stdout, stderr)
		}
		s.mu.Lock()
		s.hits = nil
		s.mu.Unlock()
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	if code, stdout, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never", "--out", empty, s.URL+"/"); code != 0 {
		t.Errorf("an empty --out file: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--overwrite", s.URL+"/"); code != 2 || !strings.Contains(stderr, "--overwrite is for an --out file") {
		t.Errorf("--overwrite without --out: exit %d\n%s", code, stderr)
	}
}

package jobstate_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/jobstate"
)

// copyDir copies the state directory src to a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// digestDir sums every file of a state but its lock (whose pid changes).
func digestDir(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "lock" {
			return err
		}
		b, _ := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return nil
	})
	return out
}

// frontierLog returns the largest log file of the state's Pebble store.
func frontierLog(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "frontier", "*.log"))
	best, size := "", int64(-1)
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil && fi.Size() > size {
			best, size = l, fi.Size()
		}
	}
	if size <= 0 {
		t.Fatalf("no frontier log in %s: %v", dir, logs)
	}
	return best
}

// TestStateRefusesDamage: a paused state whose skip log was deleted, cut
// or altered, or whose frontier was deleted or its log damaged, is
// refused on resume with a message naming the damage, and the state is
// left as it was.
func TestStateRefusesDamage(t *testing.T) {
	site := startScenario(t)
	paused := t.TempDir()
	sum := stateRun(t, site, paused, 40)
	t.Logf("paused: %+v skipped %d", sum.Stats, sum.Skipped.Total)
	if !sum.Interrupted {
		t.Fatal("the first run was not paused")
	}
	skips, err := os.ReadFile(filepath.Join(paused, "skipped.jsonl"))
	if err != nil || bytes.Count(skips, []byte("\n")) < 2 {
		t.Fatalf("the paused state has too few skip records to damage (%v): %q", err, skips)
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   []string
	}{
		{"skip log deleted", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "skipped.jsonl"))
		}, []string{"skip log", "missing"}},
		{"last skip record cut", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "skipped.jsonl")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-10], 0o644)
		}, []string{"skip log", "shorter"}},
		{"last skip record removed", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "skipped.jsonl")
			b, _ := os.ReadFile(p)
			i := bytes.LastIndexByte(b[:len(b)-1], '\n')
			os.WriteFile(p, b[:i+1], 0o644)
		}, []string{"skip log", "shorter"}},
		{"skip record altered", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "skipped.jsonl")
			b, _ := os.ReadFile(p)
			b = bytes.Replace(b, []byte(`"reason":"`), []byte(`"reason":"x`), 1)
			b = b[:len(b)-1] // same length
			os.WriteFile(p, b, 0o644)
		}, []string{"skip log", "altered"}},
		{"frontier deleted", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "frontier"))
		}, []string{"frontier", "missing"}},
		{"frontier log overwritten", func(t *testing.T, dir string) {
			l := frontierLog(t, dir)
			f, err := os.OpenFile(l, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			f.WriteAt([]byte{0xde, 0xad, 0xbe, 0xef}, fi.Size()/2)
			f.Close()
		}, []string{"frontier", "damaged"}},
		{"frontier log cut in half", func(t *testing.T, dir string) {
			l := frontierLog(t, dir)
			fi, _ := os.Stat(l)
			os.Truncate(l, fi.Size()/2)
		}, []string{"frontier", "damaged"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, paused)
			tc.damage(t, dir)
			before := digestDir(t, dir)
			c, err := crawler.New("HeedBot", append(siteOptions(site), crawler.WithBackend(jobstate.Dir(dir)))...)
			if err != nil {
				t.Fatal(err)
			}
			c.FollowLinks()
			hits := len(site.Hits())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sum, err := c.Run(ctx, site.Seeds()...)
			if err == nil {
				t.Fatalf("a damaged state was resumed: %+v", jobstate.InfoOf(sum.Backend))
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal does not name %q: %v", w, err)
				}
			}
			if n := len(site.Hits()) - hits; n > 0 {
				t.Errorf("a refused state made %d requests", n)
			}
			after := digestDir(t, dir)
			for p, d := range before {
				if after[p] != d {
					t.Errorf("a refused resume changed %s", p)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("a refused resume created %s", p)
				}
			}
		})
	}
	// The undamaged state resumes.
	if sum := stateRun(t, site, paused, 0); sum.Interrupted {
		t.Error("the undamaged state did not resume to the end")
	}
}

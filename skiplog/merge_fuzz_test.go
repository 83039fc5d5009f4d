package skiplog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzMerge merges two inputs from the fuzzer's bytes. Merge must never
// panic; when it fails, the error names an input and a line; when it
// succeeds, the output is a skip log in time order with each URL once, and
// the counts add up.
func FuzzMerge(f *testing.F) {
	for _, pair := range [][2]string{{"a.jsonl", "b.jsonl"}, {"a.jsonl", "torn.jsonl"}, {"backwards.jsonl", "b.jsonl"}} {
		a, err := os.ReadFile(filepath.Join("testdata", "merge", pair[0]))
		if err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "merge", pair[1]))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(a, b)
	}
	f.Add([]byte(""), []byte("\n"))
	f.Add([]byte(`{"time":"2026-11-30T12:00:00Z","url":"u","reason":"r"}`), []byte(`{"url":"u","reason":"r"}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var out bytes.Buffer
		st, err := Merge(&out, bytes.NewReader(a), bytes.NewReader(b))
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line < 1 || (ie.Input != "input 1" && ie.Input != "input 2") {
				t.Fatalf("error %v does not name an input and a line", err)
			}
			return
		}
		if st.Total+st.Duplicates != st.Read {
			t.Fatalf("wrote %d and dropped %d of %d", st.Total, st.Duplicates, st.Read)
		}
		seen := make(map[string]bool)
		var prev time.Time
		n := 0
		if err := Read(&out, func(r *Record) error {
			if seen[r.URL] {
				t.Fatalf("%q written twice", r.URL)
			}
			seen[r.URL] = true
			if n > 0 && r.Time.Before(prev) {
				t.Fatalf("%q at %v after %v", r.URL, r.Time, prev)
			}
			prev = r.Time
			n++
			return nil
		}); err != nil {
			t.Fatalf("the merged log does not read back: %v", err)
		}
		if n != st.Total {
			t.Fatalf("read back %d records; Merge says %d", n, st.Total)
		}
	})
}

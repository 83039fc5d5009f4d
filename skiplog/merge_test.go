package skiplog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openFixtures(t *testing.T, names ...string) []io.Reader {
	t.Helper()
	var rs []io.Reader
	for _, n := range names {
		f, err := os.Open(filepath.Join("testdata", "merge", n))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		rs = append(rs, f)
	}
	return rs
}

// lines returns the non-blank lines of the fixture, trimmed.
func fixtureLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "merge", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Two processes' logs: records in time order across both (a time in
// another zone compares as the instant it is), ties in input order, one
// record per URL with the earliest kept, lines written as read.
func TestMergeTwoLogs(t *testing.T) {
	var out bytes.Buffer
	st, err := Merge(&out, openFixtures(t, "a.jsonl", "b.jsonl")...)
	if err != nil {
		t.Fatal(err)
	}
	a, b := fixtureLines(t, "a.jsonl"), fixtureLines(t, "b.jsonl")
	want := []string{a[0], b[0], a[1], a[2], b[3], a[3]}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("merged %d lines, want %d:\n%s", len(got), len(want), out.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
	if st.Read != 8 || st.Duplicates != 2 || st.Total != 6 ||
		st.DuplicatesByReason[FetchError] != 1 || st.DuplicatesByReason[RobotsDisallow] != 1 {
		t.Errorf("stats = %+v", st)
	}
	if st.ByReason[RobotsDisallow] != 1 || st.ByAuthority["http://b.test"][Filter] != 1 || st.ByAuthority["http://a.test"][FetchError] != 1 {
		t.Errorf("summary = %+v", st.Summary)
	}
	// The output is a skip log: Read takes it, times never go back, and
	// merging it again changes nothing.
	var prev time.Time
	n := 0
	if err := Read(bytes.NewReader(out.Bytes()), func(r *Record) error {
		if r.Time.Before(prev) {
			t.Errorf("%s at %v after %v", r.URL, r.Time, prev)
		}
		prev = r.Time
		n++
		return nil
	}); err != nil || n != 6 {
		t.Fatalf("reading the merged log: %d records, %v", n, err)
	}
	var again bytes.Buffer
	if st2, err := Merge(&again, bytes.NewReader(out.Bytes())); err != nil || again.String() != out.String() || st2.Duplicates != 0 {
		t.Errorf("merging the merged log again: %v, %d duplicates, changed: %v", err, st2.Duplicates, again.String() != out.String())
	}
	var table bytes.Buffer
	if err := st.Format(&table); err != nil || !strings.Contains(table.String(), "skipped: 6 URLs") {
		t.Errorf("Format = %q, %v", table.String(), err)
	}
}

// namedReader is an input with a name, as an *os.File has.
type namedReader struct {
	io.Reader
	name string
}

func (n namedReader) Name() string { return n.name }

// A line that is not a complete record, a record going back in time and an
// overlong line fail the merge, naming the input and the line.
func TestMergeBadInputs(t *testing.T) {
	rec := func(sec int, url string) string {
		return fmt.Sprintf(`{"time":"2026-11-30T12:00:%02dZ","url":%q,"reason":"depth"}`, sec, url)
	}
	good := rec(0, "http://x.test/1") + "\n" + rec(1, "http://x.test/2") + "\n"
	tests := []struct {
		name     string
		inputs   []io.Reader
		input    string
		line     int
		wantOrd  bool
		contains string
	}{
		{"torn last line of a file", openFixtures(t, "a.jsonl", "torn.jsonl"), filepath.Join("testdata", "merge", "torn.jsonl"), 3, false, "not a complete record"},
		{"backwards in a file", openFixtures(t, "backwards.jsonl"), filepath.Join("testdata", "merge", "backwards.jsonl"), 3, true, "line 2 has 2026-11-30T12:00:09Z"},
		{"unnamed input", []io.Reader{strings.NewReader(good), strings.NewReader(good + "{\"url\":")}, "input 2", 3, false, "not a complete record"},
		{"no reason", []io.Reader{namedReader{strings.NewReader(`{"url":"http://x.test/"}` + "\n"), "p1.jsonl"}}, "p1.jsonl", 1, false, "without url or reason"},
		{"not JSON", []io.Reader{strings.NewReader("\n\nhello\n")}, "input 1", 3, false, "not a complete record"},
		{"line over the limit", []io.Reader{strings.NewReader(good + strings.Repeat("x", maxLine+1) + "\n")}, "input 1", 3, false, "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge(io.Discard, tt.inputs...)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Merge = %v; want an InputError", err)
			}
			if ie.Input != tt.input || ie.Line != tt.line {
				t.Errorf("error names %s line %d; want %s line %d (%v)", ie.Input, ie.Line, tt.input, tt.line, err)
			}
			if errors.Is(err, ErrOutOfOrder) != tt.wantOrd {
				t.Errorf("errors.Is(ErrOutOfOrder) = %v; want %v", !tt.wantOrd, tt.wantOrd)
			}
			if !strings.Contains(err.Error(), tt.contains) || !strings.Contains(err.Error(), tt.input) {
				t.Errorf("error %q does not say %q and name %s", err, tt.contains, tt.input)
			}
		})
	}
}

// Equal times in one input are in order; no input, empty inputs and blank
// lines merge to nothing.
func TestMergeEdges(t *testing.T) {
	same := `{"time":"2026-11-30T12:00:00Z","url":"http://x.test/1","reason":"depth"}` + "\n" +
		`{"time":"2026-11-30T12:00:00Z","url":"http://x.test/2","reason":"depth"}` + "\n"
	var out bytes.Buffer
	if st, err := Merge(&out, strings.NewReader(same)); err != nil || st.Total != 2 || out.String() != same {
		t.Errorf("equal times: %+v, %v, %q", st, err, out.String())
	}
	out.Reset()
	if st, err := Merge(&out); err != nil || st.Total != 0 || out.Len() != 0 {
		t.Errorf("no input: %+v, %v", st, err)
	}
	if st, err := Merge(&out, strings.NewReader(""), strings.NewReader("\n  \n")); err != nil || st.Read != 0 || out.Len() != 0 {
		t.Errorf("empty inputs: %+v, %v", st, err)
	}
	// A URL twice in one input (a log written by two runs of a crawl that
	// did not remember it) is one record too.
	twice := `{"time":"2026-11-30T12:00:00Z","url":"http://x.test/1","reason":"depth"}` + "\n" +
		`{"time":"2026-11-30T12:00:01Z","url":"http://x.test/1","reason":"interrupted"}` + "\n"
	out.Reset()
	if st, err := Merge(&out, strings.NewReader(twice)); err != nil || st.Total != 1 || st.Duplicates != 1 || st.DuplicatesByReason[Interrupted] != 1 {
		t.Errorf("a URL twice in one input: %+v, %v", st, err)
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.after -= len(b); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

// A failed write is an error, not a short log.
func TestMergeWriteError(t *testing.T) {
	var big strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&big, `{"time":"2026-11-30T12:00:00Z","url":"http://x.test/%d","reason":"depth"}`+"\n", i)
	}
	if _, err := Merge(&failWriter{after: 10000}, strings.NewReader(big.String())); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Merge to a failing writer = %v", err)
	}
}

// genLog streams a skip log of n records, one per URL of the form
// prefix/i, a second apart from start, without holding it in memory.
func genLog(n int, prefix string, start time.Time, step time.Duration) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriter(pw)
		for i := 0; i < n; i++ {
			fmt.Fprintf(bw, `{"time":%q,"url":"%s/%d","authority":"http://x.test","reason":"depth"}`+"\n",
				start.Add(time.Duration(i)*step).Format(time.RFC3339Nano), prefix, i)
		}
		pw.CloseWithError(bw.Flush())
	}()
	return pr
}

// Four streamed inputs of 50,000 records each with interleaved times and
// half their URLs shared: the output is in order and has each URL once.
func TestMergeManyStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200,000 records")
	}
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const n = 50000
	ins := []io.Reader{
		genLog(n, "http://x.test/a", t0, 4*time.Millisecond),
		genLog(n, "http://x.test/a", t0.Add(time.Millisecond), 4*time.Millisecond), // same URLs, later
		genLog(n, "http://x.test/b", t0.Add(2*time.Millisecond), 4*time.Millisecond),
		genLog(n, "http://x.test/c", t0.Add(3*time.Millisecond), 4*time.Millisecond),
	}
	pr, pw := io.Pipe()
	type result struct {
		n   int
		err error
	}
	done := make(chan result)
	go func() {
		var prev time.Time
		n := 0
		err := Read(pr, func(r *Record) error {
			if r.Time.Before(prev) {
				return fmt.Errorf("%s out of order", r.URL)
			}
			if strings.HasPrefix(r.URL, "http://x.test/a/") && r.Time.Nanosecond()%int(4*time.Millisecond) != 0 {
				return fmt.Errorf("%s: the later duplicate was kept", r.URL)
			}
			prev = r.Time
			n++
			return nil
		})
		io.Copy(io.Discard, pr)
		done <- result{n, err}
	}()
	st, err := Merge(pw, ins...)
	pw.CloseWithError(err)
	res := <-done
	if err != nil || res.err != nil {
		t.Fatal(err, res.err)
	}
	if st.Read != 4*n || st.Total != 3*n || st.Duplicates != n || res.n != 3*n {
		t.Errorf("read %d, wrote %d (%d seen by the reader), %d duplicates; want %d, %d, %d", st.Read, st.Total, res.n, st.Duplicates, 4*n, 3*n, n)
	}
}

package skiplog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriteReadRoundTrip(t *testing.T) {
	fixed := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	recs := []*Record{
		{URL: "http://a.test/private/x", Authority: "http://a.test", Reason: RobotsDisallow,
			Robots: &Robots{URL: "http://a.test/robots.txt", FetchedAt: fixed, Status: 200, Line: 3, Rule: "Disallow: /private/", Group: []string{"HeedBot"}, GroupLines: []int{2}}},
		{URL: "http://b.test/", Authority: "http://b.test", Reason: RobotsUnreachable, Status: 500},
		{URL: "http://c.test/<&>", Authority: "http://c.test", Reason: Offsite, Detail: "host c.test not allowed"},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, WithClock(func() time.Time { return fixed }))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(buf.String(), `\u003c`) {
		t.Errorf("URLs are HTML-escaped in the log: %s", buf.String())
	}
	var got []*Record
	if err := Read(&buf, func(r *Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, wrote %d", len(got), len(recs))
	}
	for i := range recs {
		if got[i].URL != recs[i].URL || got[i].Reason != recs[i].Reason || !got[i].Time.Equal(fixed) {
			t.Errorf("record %d: got %+v, want %+v", i, got[i], recs[i])
		}
	}
	if r := got[0].Robots; r == nil || r.Line != 3 || r.Rule != "Disallow: /private/" || r.Group[0] != "HeedBot" || !r.FetchedAt.Equal(fixed) {
		t.Errorf("robots evidence lost: %+v", got[0].Robots)
	}
	s := w.Summary()
	if s.Total != 3 || s.ByReason[RobotsDisallow] != 1 || s.ByAuthority["http://b.test"][RobotsUnreachable] != 1 {
		t.Errorf("summary = %+v", s)
	}
}

func TestConcurrentWritesAreWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skipped.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 250
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				u := fmt.Sprintf("http://h%d.test/%s", g, strings.Repeat("x", i))
				if err := w.Write(&Record{URL: u, Reason: Filter, Authority: fmt.Sprintf("http://h%d.test", g)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	seen := map[string]bool{}
	if err := Read(f, func(r *Record) error { n++; seen[r.URL] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != workers*each || len(seen) != workers*each {
		t.Fatalf("read %d records (%d distinct), want %d", n, len(seen), workers*each)
	}
	if got := w.Summary().Total; got != workers*each {
		t.Errorf("summary total %d", got)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFailedWritesAreCountedNotHidden(t *testing.T) {
	w := NewWriter(failingWriter{})
	err := w.Write(&Record{URL: "http://a.test/", Reason: Depth})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	s := w.Summary()
	if s.Total != 1 || s.Failed != 1 || w.Err() == nil {
		t.Errorf("summary %+v, err %v", s, w.Err())
	}
	var out bytes.Buffer
	if err := s.Format(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "could not be written") {
		t.Errorf("summary does not warn about lost records:\n%s", out.String())
	}
}

func TestReadRejectsTornLines(t *testing.T) {
	in := `{"time":"2026-11-30T00:00:00Z","url":"http://a.test/","reason":"depth"}` + "\n" + `{"time":"2026-11-30T00:00:00Z","url":"http://a.te`
	n := 0
	err := Read(strings.NewReader(in), func(*Record) error { n++; return nil })
	if n != 1 || err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("n=%d err=%v", n, err)
	}
}

func TestRecordIsAnError(t *testing.T) {
	var err error = &Record{URL: "http://a.test/p", Reason: RobotsDisallow, Robots: &Robots{URL: "http://a.test/robots.txt", Line: 4, Rule: "Disallow: /p"}}
	var rec *Record
	if !errors.As(fmt.Errorf("fetch: %w", err), &rec) || rec.Reason != RobotsDisallow {
		t.Fatal("errors.As does not find the record")
	}
	if want := `robots-disallow: http://a.test/p (http://a.test/robots.txt line 4: "Disallow: /p")`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestSummaryFormatOrder(t *testing.T) {
	var s Summary
	s.Add(&Record{URL: "u1", Reason: Interrupted, Authority: "http://b"})
	s.Add(&Record{URL: "u2", Reason: RobotsDisallow, Authority: "http://a"})
	s.Add(&Record{URL: "u3", Reason: RobotsDisallow, Authority: "http://a"})
	var out bytes.Buffer
	if err := s.Format(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := "skipped: 3 URLs\n  robots-disallow        2\n  interrupted            1\n  by authority:\n    http://a: robots-disallow=2\n    http://b: interrupted=1\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

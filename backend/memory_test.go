package backend_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

func job(w *bytes.Buffer, logs *bytes.Buffer) *backend.Job {
	j := &backend.Job{Agent: "HeedBot", Logger: slog.New(slog.NewTextHandler(logs, nil)), Now: time.Now}
	if w != nil {
		j.SkipLog = w
	}
	return j
}

// TestSkipLogOneRecordPerURL checks the backends' skip log: a URL's first
// record is written, a second (another reason) is not, and Finish counts
// what was written.
func TestSkipLogOneRecordPerURL(t *testing.T) {
	var out, logs bytes.Buffer
	s := backend.NewSkipLog(job(&out, &logs))
	first := s.Record(&skiplog.Record{URL: "http://a.test/x", Authority: "a.test", Reason: skiplog.RobotsDisallow})
	again := s.Record(&skiplog.Record{URL: "http://a.test/x", Authority: "a.test", Reason: skiplog.Interrupted})
	other := s.Record(&skiplog.Record{URL: "http://a.test/y", Authority: "a.test", Reason: skiplog.Interrupted})
	if !first || again || !other {
		t.Fatalf("Record: first %v, again %v, other URL %v; want true, false, true", first, again, other)
	}
	var res backend.Result
	if err := s.Finish(&res); err != nil {
		t.Fatal(err)
	}
	if res.Skipped.Total != 2 || res.Skipped.ByReason[skiplog.RobotsDisallow] != 1 {
		t.Errorf("Skipped %+v, want 2 records, one robots-disallow", res.Skipped)
	}
	var recs []*skiplog.Record
	err := skiplog.Read(&out, func(r *skiplog.Record) error { recs = append(recs, r); return nil })
	if err != nil || len(recs) != 2 || recs[0].URL != "http://a.test/x" || recs[0].Reason != skiplog.RobotsDisallow {
		t.Errorf("written %+v (%v)", recs, err)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestSkipLogLostRecordFailsTheRun checks that a record the writer could
// not write still counts as the URL's (it is not tried again under another
// reason), is said once in the log, and fails Finish.
func TestSkipLogLostRecordFailsTheRun(t *testing.T) {
	var logs bytes.Buffer
	j := job(nil, &logs)
	j.SkipLog = failing{}
	s := backend.NewSkipLog(j)
	for _, u := range []string{"http://a.test/1", "http://a.test/2"} {
		if !s.Record(&skiplog.Record{URL: u, Reason: skiplog.Interrupted}) {
			t.Fatalf("%s: a lost record is still the URL's first", u)
		}
	}
	if s.Record(&skiplog.Record{URL: "http://a.test/1", Reason: skiplog.FetchError}) {
		t.Error("a URL whose record was lost took a second record")
	}
	var res backend.Result
	err := s.Finish(&res)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Finish: %v, want the write error", err)
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d errors logged, want the first loss only:\n%s", n, logs.String())
	}
	if res.Skipped.Failed != 2 {
		t.Errorf("Skipped %+v, want 2 failed", res.Skipped)
	}
}

// TestMemoryFrontier checks that Memory opens its own frontier, or the
// one it is given, and drains on a stop.
func TestMemoryFrontier(t *testing.T) {
	var logs bytes.Buffer
	given := frontier.NewMemory()
	for _, tc := range []struct {
		name string
		b    backend.Memory
	}{{"own", backend.Memory{}}, {"given", backend.Memory{Frontier: given}}} {
		j := job(nil, &logs)
		if err := tc.b.Check(j); err != nil {
			t.Fatalf("%s: Check: %v", tc.name, err)
		}
		s, err := tc.b.Open(context.Background(), j)
		if err != nil {
			t.Fatalf("%s: Open: %v", tc.name, err)
		}
		if (s.Frontier() == given) != (tc.b.Frontier != nil) || s.Frontier() == nil || s.Pacer() == nil {
			t.Errorf("%s: frontier %v, pacer %v", tc.name, s.Frontier(), s.Pacer())
		}
		if a, ok := s.(backend.Admitter); !ok || a.Admits() != (tc.b.Frontier == nil) {
			t.Errorf("%s: the session does not say whether its frontier asks the admission (own: %v)", tc.name, tc.b.Frontier == nil)
		}
		if s.Stop() != backend.Drain {
			t.Errorf("%s: stop policy %v, want Drain", tc.name, s.Stop())
		}
		res, err := s.Frontier().Push(context.Background(), &frontier.Request{URL: "http://a.test/"})
		if err != nil || res != frontier.Added {
			t.Errorf("%s: push %v %v", tc.name, res, err)
		}
		if err := errors.Join(s.Frontier().Close(), s.Close()); err != nil {
			t.Error(err)
		}
	}
}

package skiplog

import (
	"bytes"
	"strings"
	"testing"
)

// TestOnceWriterKeepsOneRecordPerURL: the first record of a URL is
// written, later ones (another reason included) are not and say so; URLs
// longer than MaxURLBytes that differ past the cut are two URLs; the
// records are written in the order given.
func TestOnceWriterKeepsOneRecordPerURL(t *testing.T) {
	var buf bytes.Buffer
	o := NewOnceWriter(NewWriter(&buf))
	long := "http://a.test/" + strings.Repeat("x", MaxURLBytes)
	steps := []struct {
		url    string
		reason Reason
		first  bool
	}{
		{"http://a.test/1", RobotsDisallow, true},
		{"http://a.test/2", Depth, true},
		{"http://a.test/1", Depth, false},
		{"http://a.test/1", RobotsDisallow, false},
		{long + "a", Depth, true},
		{long + "b", Depth, true},
		{long + "a", Nofollow, false},
	}
	for i, s := range steps {
		first, err := o.Record(&Record{URL: s.url, Reason: s.reason})
		if err != nil || first != s.first {
			t.Errorf("step %d (%s %.30s): first %v, error %v; want first %v", i, s.reason, s.url, first, err, s.first)
		}
	}
	var got []string
	if err := Read(&buf, func(r *Record) error { got = append(got, string(r.Reason)+" "+r.Key()); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"robots-disallow http://a.test/1", "depth http://a.test/2", "depth sha256:", "depth sha256:"}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("record %d is %.60q, want %q", i, got[i], want[i])
		}
	}
	if n := o.Summary().Total; n != 4 {
		t.Errorf("summary counts %d records, want 4", n)
	}
}

// TestOnceWriterFailedWriteIsFirst: a first record whose write fails is
// the URL's first all the same (a second is not written), its error is
// returned and kept, and it is counted as failed; a nil record is an
// error, not a panic.
func TestOnceWriterFailedWriteIsFirst(t *testing.T) {
	o := NewOnceWriter(NewWriter(failingWriter{}))
	first, err := o.Record(&Record{URL: "http://a.test/1", Reason: Depth})
	if !first || err == nil {
		t.Errorf("first write: first %v, error %v; want true and an error", first, err)
	}
	if first, err = o.Record(&Record{URL: "http://a.test/1", Reason: Depth}); first || err != nil {
		t.Errorf("second write: first %v, error %v; want false and none", first, err)
	}
	if s := o.Summary(); s.Failed != 1 || o.Err() == nil {
		t.Errorf("summary %+v, error %v; want 1 failed and the error kept", s, o.Err())
	}
	if _, err := o.Record(nil); err == nil {
		t.Error("a nil record is no error")
	}
}

package skiplog

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriterCapsLongURLs: a 100 KiB URL (and referrer) is stored cut to
// MaxURLBytes, and the record says so with the original length; a URL
// within the cap is stored whole, without the flag.
func TestWriterCapsLongURLs(t *testing.T) {
	long := "http://a.test/" + strings.Repeat("x", 100<<10)
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(&Record{URL: long, Referrer: long, Reason: InvalidURL}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{URL: "http://a.test/short", Reason: InvalidURL}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	if n := len(lines[0]); n > 3*MaxURLBytes {
		t.Errorf("a record of a 100 KiB URL is %d bytes long", n)
	}
	var recs []*Record
	if err := Read(strings.NewReader(buf.String()), func(r *Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	if len(r.URL) != MaxURLBytes || !strings.HasPrefix(long, r.URL) || r.URLBytes != len(long) || r.ReferrerBytes != len(long) {
		t.Errorf("capped record: url %d bytes, url_bytes %d, referrer_bytes %d; want %d, %d, %d", len(r.URL), r.URLBytes, r.ReferrerBytes, MaxURLBytes, len(long), len(long))
	}
	if r.Key() != KeyOf(long) || (&Record{URL: long}).Key() != r.Key() {
		t.Errorf("the cut record's key %q is not the whole URL's", r.Key())
	}
	if recs[1].URL != "http://a.test/short" || recs[1].URLBytes != 0 || recs[1].Key() != recs[1].URL {
		t.Errorf("short record %+v", recs[1])
	}
}

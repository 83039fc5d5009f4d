package sitemap

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	utc := time.UTC
	tests := []struct {
		in      string
		want    time.Time
		lenient bool // read, with a note
		bad     bool
	}{
		// W3C Datetime, every precision.
		{in: "2024", want: time.Date(2024, 1, 1, 0, 0, 0, 0, utc)},
		{in: "2024-03", want: time.Date(2024, 3, 1, 0, 0, 0, 0, utc)},
		{in: "2024-03-05", want: time.Date(2024, 3, 5, 0, 0, 0, 0, utc)},
		{in: "2024-03-05T10:20+02:00", want: time.Date(2024, 3, 5, 8, 20, 0, 0, utc)},
		{in: "2024-03-05T10:20:30Z", want: time.Date(2024, 3, 5, 10, 20, 30, 0, utc)},
		{in: "2024-03-05T10:20:30.45-05:00", want: time.Date(2024, 3, 5, 15, 20, 30, 450e6, utc)},
		{in: "  2024-03-05  ", want: time.Date(2024, 3, 5, 0, 0, 0, 0, utc)},
		// Seen in the wild: read and reported.
		{in: "2024-03-05T10:20:30", want: time.Date(2024, 3, 5, 10, 20, 30, 0, utc), lenient: true},
		{in: "2024-03-05 10:20:30", want: time.Date(2024, 3, 5, 10, 20, 30, 0, utc), lenient: true},
		{in: "2024-03-05 10:20:30+01:00", want: time.Date(2024, 3, 5, 9, 20, 30, 0, utc), lenient: true},
		{in: "2024-03-05T10:20:30+0100", want: time.Date(2024, 3, 5, 9, 20, 30, 0, utc), lenient: true},
		{in: "2024-03-05t10:20:30z", want: time.Date(2024, 3, 5, 10, 20, 30, 0, utc), lenient: true},
		// RFC 1123 and RFC 822, for feeds.
		{in: "Tue, 05 Mar 2024 10:00:00 GMT", want: time.Date(2024, 3, 5, 10, 0, 0, 0, utc)},
		{in: "Tue, 05 Mar 2024 10:00:00 +0100", want: time.Date(2024, 3, 5, 9, 0, 0, 0, utc)},
		{in: "Tue, 5 Mar 2024 10:00 PDT", want: time.Date(2024, 3, 5, 17, 0, 0, 0, utc)},
		{in: "05 Mar 24 10:00:00 EST", want: time.Date(2024, 3, 5, 15, 0, 0, 0, utc)},
		{in: "Tue, 05 Mar 2024 10:00:00", want: time.Date(2024, 3, 5, 10, 0, 0, 0, utc), lenient: true},
		{in: "Tue, 05 Mar 2024 10:00:00 CET", want: time.Date(2024, 3, 5, 10, 0, 0, 0, utc), lenient: true},
		// Not dates.
		{in: "", bad: true},
		{in: "yesterday", bad: true},
		{in: "2024-13-01", bad: true},
		{in: "2024-02-30", bad: true},
		{in: "24-03-05", bad: true},
		{in: "Tue, 05 Foo 2024 10:00:00 GMT", bad: true},
		{in: "1 2 3 4 5 6", bad: true},
		{in: "2024-03-05T25:00:00Z", bad: true},
	}
	for _, tt := range tests {
		got, note, ok := parseDate(tt.in)
		if ok == tt.bad {
			t.Errorf("parseDate(%q) ok=%v, want %v", tt.in, ok, !tt.bad)
			continue
		}
		if tt.bad {
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("parseDate(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if (note != "") != tt.lenient {
			t.Errorf("parseDate(%q) note %q, want lenient=%v", tt.in, note, tt.lenient)
		}
	}
}

package sitemap

import (
	"strings"
	"time"
)

// W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the sitemaps
// protocol's format, and the profile of ISO 8601 that Atom uses. Go's
// parser accepts a fractional second after the seconds without a layout
// for it.
var w3cLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"2006-01",
	"2006",
}

// Forms seen in real sitemaps that are not W3C Datetime; read, and reported.
var lenientLayouts = []struct{ layout, note string }{
	{"2006-01-02T15:04:05", "no time zone; read as UTC"},
	{"2006-01-02T15:04", "no time zone; read as UTC"},
	{"2006-01-02 15:04:05Z07:00", "space instead of T"},
	{"2006-01-02 15:04:05", "space instead of T and no time zone; read as UTC"},
	{"2006-01-02T15:04:05-0700", "zone without colon"},
	{"2006-01-02T15:04:05-07", "zone without minutes"},
}

// RFC 822 / RFC 1123 dates of RSS, normalised by parseRFC822 first.
var rfc822Layouts = []string{
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 -0700",
	"2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04 -0700",
}

// RFC 822's zone names; Go's parser would give them offset zero.
var rfc822Zones = map[string]string{
	"UT": "+0000", "UTC": "+0000", "GMT": "+0000", "Z": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// parseDate reads a lastmod, pubDate, updated or publication date. ok is
// false when s could not be read; note is non-empty when s was read but is
// not in the format its field asks for.
func parseDate(s string) (t time.Time, note string, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, "", false
	}
	if c := s[0]; c >= '0' && c <= '9' && len(s) >= 4 && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9' && s[3] >= '0' && s[3] <= '9' {
		// Pick the layout by length first: a failed time.Parse allocates
		// its error, and dates are parsed once per URL.
		layouts := w3cLayouts[:2]
		switch len(s) {
		case 4:
			layouts = w3cLayouts[4:]
		case 7:
			layouts = w3cLayouts[3:4]
		case 10:
			layouts = w3cLayouts[2:3]
		}
		for _, l := range layouts {
			if t, err := time.Parse(l, s); err == nil {
				return t, "", true
			}
		}
		if up := strings.ToUpper(s); up != s {
			for _, l := range w3cLayouts[:2] {
				if t, err := time.Parse(l, up); err == nil {
					return t, "lower-case T or Z", true
				}
			}
		}
		for _, l := range lenientLayouts {
			if t, err := time.Parse(l.layout, s); err == nil {
				return t, l.note, true
			}
		}
		return time.Time{}, "", false
	}
	return parseRFC822(s)
}

// parseRFC822 reads "Mon, 02 Jan 2006 15:04:05 -0700" and its variants:
// no weekday, one-digit day, two-digit year, no seconds, a zone name.
func parseRFC822(s string) (time.Time, string, bool) {
	if i := strings.IndexByte(s, ','); i >= 0 && i <= 10 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	note := ""
	switch len(f) {
	case 4:
		f = append(f, "+0000")
		note = "no time zone; read as UTC"
	case 5:
	default:
		return time.Time{}, "", false
	}
	zone := f[4]
	if z, ok := rfc822Zones[strings.ToUpper(zone)]; ok {
		f[4] = z
	} else if c := zone[0]; c != '+' && c != '-' {
		f[4] = "+0000"
		note = "unknown time zone " + zone + "; read as UTC"
	}
	norm := strings.Join(f, " ")
	for _, l := range rfc822Layouts {
		if t, err := time.Parse(l, norm); err == nil {
			return t, note, true
		}
	}
	return time.Time{}, "", false
}

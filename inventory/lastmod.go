package inventory

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// NormalizeLastMod returns a lastmod in the form rows carry it: t (the
// sitemap package's parse of raw) in RFC 3339, in UTC, and whether raw,
// not empty, could not be parsed (t zero), which rows report instead of
// dropping the value.
func NormalizeLastMod(raw string, t time.Time) (normal string, invalid bool) {
	switch {
	case strings.TrimSpace(raw) == "":
		return "", false
	case t.IsZero():
		return "", true
	}
	return t.UTC().Format(time.RFC3339Nano), false
}

// LastModSummary describes the lastmod values of an inventory's distinct
// URLs (a URL listed again is not counted again).
type LastModSummary struct {
	// Dated counts the URLs with a valid lastmod; Oldest and Newest are
	// the earliest and latest of them (RFC 3339, UTC), "" when none.
	Dated  int    `json:"dated"`
	Oldest string `json:"oldest,omitempty"`
	Newest string `json:"newest,omitempty"`
	// ByYear counts the dated URLs by the year of their lastmod (UTC).
	ByYear map[int]int `json:"by_year,omitempty"`
	// Missing counts the URLs listed without a lastmod; Invalid those
	// whose lastmod is not a W3C datetime (Row.LastModInvalid).
	Missing int `json:"missing"`
	Invalid int `json:"invalid"`

	oldest, newest time.Time
}

// add counts one distinct URL's row.
func (s *LastModSummary) add(r *Row) {
	switch {
	case r.LastModInvalid:
		s.Invalid++
		return
	case r.LastMod == "":
		s.Missing++
		return
	}
	t, err := time.Parse(time.RFC3339Nano, r.LastMod)
	if err != nil { // NormalizeLastMod wrote it: cannot happen
		s.Invalid++
		return
	}
	s.Dated++
	if s.ByYear == nil {
		s.ByYear = map[int]int{}
	}
	s.ByYear[t.Year()]++
	if s.oldest.IsZero() || t.Before(s.oldest) {
		s.oldest, s.Oldest = t, r.LastMod
	}
	if s.newest.IsZero() || t.After(s.newest) {
		s.newest, s.Newest = t, r.LastMod
	}
}

// Format writes the lastmod summary on one line: "lastmod: 3 dated,
// oldest ..., newest ...; by year 2024=1 2025=2; 1 without, 1 invalid".
func (s *LastModSummary) Format(w io.Writer) {
	fmt.Fprintf(w, "lastmod: %d dated", s.Dated)
	if s.Dated > 0 {
		fmt.Fprintf(w, ", oldest %s, newest %s; by year", s.Oldest, s.Newest)
		years := make([]int, 0, len(s.ByYear))
		for y := range s.ByYear {
			years = append(years, y)
		}
		slices.Sort(years)
		for _, y := range years {
			fmt.Fprintf(w, " %d=%d", y, s.ByYear[y])
		}
	}
	fmt.Fprintf(w, "; %d without, %d invalid\n", s.Missing, s.Invalid)
}

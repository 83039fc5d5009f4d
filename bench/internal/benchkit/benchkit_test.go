package benchkit

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
)

func TestMeasureSpacing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []Stamp {
		var out []Stamp
		for i, m := range ms {
			out = append(out, Stamp{Path: fmt.Sprintf("/%d", i), Time: t0.Add(time.Duration(m) * time.Millisecond)})
		}
		return out
	}
	const gap = 100 * time.Millisecond
	tests := []struct {
		name    string
		byAuth  map[string][]Stamp
		gap     time.Duration
		want    Spacing
		details []GapViolation
	}{
		{name: "empty", gap: gap},
		{name: "one request", byAuth: map[string][]Stamp{"a": at(5)}, gap: gap},
		{name: "evenly spaced", byAuth: map[string][]Stamp{"a": at(0, 100, 200)}, gap: gap,
			want: Spacing{MinGap: 0.1, Span: 0.2}},
		{name: "one short gap after a long one", byAuth: map[string][]Stamp{"a": at(0, 130, 199)}, gap: gap,
			want:    Spacing{Violations: 1, MinGap: 0.069, Span: 0.199},
			details: []GapViolation{{Authority: "a", Prev: "/1", Path: "/2", Gap: 0.069, GapBefore: 0.13}}},
		{name: "first pair short", byAuth: map[string][]Stamp{"a": at(0, 50)}, gap: gap,
			want:    Spacing{Violations: 1, MinGap: 0.05, Span: 0.05},
			details: []GapViolation{{Authority: "a", Prev: "/0", Path: "/1", Gap: 0.05, GapBefore: -1}}},
		{name: "out of order input is sorted", byAuth: map[string][]Stamp{"a": at(200, 0, 100)}, gap: gap,
			want: Spacing{MinGap: 0.1, Span: 0.2}},
		{name: "authorities apart", byAuth: map[string][]Stamp{"a": at(0, 150), "b": at(10, 60)}, gap: gap,
			want:    Spacing{Violations: 1, MinGap: 0.05, Span: 0.15},
			details: []GapViolation{{Authority: "b", Prev: "/0", Path: "/1", Gap: 0.05, GapBefore: -1}}},
		{name: "no gap asked", byAuth: map[string][]Stamp{"a": at(0, 0, 1)}, gap: 0,
			want: Spacing{MinGap: 0, Span: 0.001}},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MeasureSpacing(tt.byAuth, tt.gap)
			if got.Violations != tt.want.Violations || !near(got.MinGap, tt.want.MinGap) || !near(got.Span, tt.want.Span) {
				t.Errorf("MeasureSpacing = %d, %v, %v; want %d, %v, %v", got.Violations, got.MinGap, got.Span,
					tt.want.Violations, tt.want.MinGap, tt.want.Span)
			}
			if len(got.Details) != len(tt.details) {
				t.Fatalf("details %+v, want %+v", got.Details, tt.details)
			}
			for i, d := range got.Details {
				w := tt.details[i]
				if d.Authority != w.Authority || d.Prev != w.Prev || d.Path != w.Path || !near(d.Gap, w.Gap) || !near(d.GapBefore, w.GapBefore) {
					t.Errorf("detail %d = %+v, want %+v", i, d, w)
				}
			}
		})
	}
}

func TestMeasureSpacingListsAtMostSomeViolations(t *testing.T) {
	var ts []Stamp
	for i := 0; i < 3*MaxViolationDetails; i++ {
		ts = append(ts, Stamp{Path: "/", Time: time.Unix(0, int64(i))})
	}
	got := MeasureSpacing(map[string][]Stamp{"a": ts}, time.Second)
	if got.Violations != len(ts)-1 || len(got.Details) != MaxViolationDetails {
		t.Errorf("%d violations, %d listed", got.Violations, len(got.Details))
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{5, 5, 1}, 5},
	}
	for _, tt := range tests {
		if got := Median(tt.in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing is not NaN")
	}
	in := []float64{3, 1, 2}
	Median(in)
	if in[0] != 3 {
		t.Error("median reordered its input")
	}
}

func TestTableHeader(t *testing.T) {
	tests := []struct {
		align string
		cols  []string
		want  string
	}{
		{"", []string{"a", "b"}, "| a | b |\n|---|---|\n"},
		{"-r", []string{"crawler", "runs", "pages"}, "| crawler | runs | pages |\n|---|---:|---|\n"},
		{"rrr", []string{"x"}, "| x |\n|---:|\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		TableHeader(&b, tt.align, tt.cols...)
		if b.String() != tt.want {
			t.Errorf("TableHeader(%q, %q) = %q, want %q", tt.align, tt.cols, b.String(), tt.want)
		}
	}
}

// A site nobody crawled: every expected page missing, no robots.txt
// fetched anywhere, no gap to measure.
func TestAnalyseHitsOfAnUncrawledSite(t *testing.T) {
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 2, PagesPerHost: 5, PageBytes: 256, LinksPerPage: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	site.Close()
	st := AnalyseHits(site, "HeedBot", time.Second)
	exp := site.Expected("HeedBot")
	if st.Requests != 0 || st.UniquePages != 0 || st.Missing != len(exp.Fetched) || st.Missing == 0 {
		t.Errorf("requests %d, pages %d, missing %d of %d expected", st.Requests, st.UniquePages, st.Missing, len(exp.Fetched))
	}
	if st.Authorities != 2 || st.RobotsNotOne != 2 || st.RobotsMin != 0 || st.RobotsMax != 0 {
		t.Errorf("authorities %d, robots.txt not once %d, per authority %d to %d", st.Authorities, st.RobotsNotOne, st.RobotsMin, st.RobotsMax)
	}
	if st.GapViolations != 0 || st.MinGapSeconds != 0 || !st.First.IsZero() {
		t.Errorf("gaps of no requests: %d violations, min %v, first %v", st.GapViolations, st.MinGapSeconds, st.First)
	}
}

func TestWorst(t *testing.T) {
	var w Worst
	if w.MinGapSeconds != 0 {
		t.Errorf("zero Worst: min gap %v", w.MinGapSeconds)
	}
	w.Add(HitStats{DuplicateFetches: 2, Missing: 0, Unexpected: 1, RobotsNotOne: 0, GapViolations: 0, MinGapSeconds: 0.3})
	w.Add(HitStats{DuplicateFetches: 0, Missing: 4, Unexpected: 0, RobotsNotOne: 1, GapViolations: 3, MinGapSeconds: 0.1})
	w.Add(HitStats{MinGapSeconds: 0.2})
	want := Worst{MaxDuplicates: 2, MaxMissing: 4, MaxUnexpected: 1, MaxRobotsNotOne: 1, MaxGapViolations: 3, MinGapSeconds: 0.1, runs: 3}
	if w != want {
		t.Errorf("Worst = %+v, want %+v", w, want)
	}
}

package htmlpage

import (
	"reflect"
	"strings"
	"testing"
)

// checkScanLimit: with an element limit, Scan gives the links it gives
// without one where Cut keeps the body whole, and none (LinksOK false)
// where Cut cuts it; its meta robots are read either way.
func checkScanLimit(t *testing.T, body []byte, max int) {
	t.Helper()
	want := Scan(body, "HeedBot", 0)
	if _, whole, _ := Cut(body, max); !whole {
		want = Page{Meta: want.Meta}
	}
	if got := Scan(body, "HeedBot", max); !reflect.DeepEqual(got, want) {
		t.Errorf("%q, limit %d:\n got  %+v\n want %+v", body, max, got, want)
	}
}

func TestScanElementLimitAgreesWithCut(t *testing.T) {
	var bodies []string
	bodies = append(bodies, lexCases...)
	for _, tt := range scanCases {
		bodies = append(bodies, tt.html)
	}
	bodies = append(bodies, string(benchPage()), "<script>"+strings.Repeat("if(a<b)c++;", 20)+"</script><a href=/x>x</a>")
	for _, b := range bodies {
		for max := 1; max <= 16; max++ {
			checkScanLimit(t, []byte(b), max)
		}
	}
}

func FuzzScanElementLimit(f *testing.F) {
	for _, c := range lexCases {
		f.Add([]byte(c), 3)
	}
	for _, tt := range scanCases {
		f.Add([]byte(tt.html), 2)
	}
	f.Fuzz(func(t *testing.T, body []byte, max int) {
		checkScanLimit(t, body, max%20+1)
	})
}

// manyLessThanPage is a page whose script holds 60,000 '<' (more than
// DefaultMaxElements) and 4 elements, one of them a link.
func manyLessThanPage() []byte {
	return []byte("<html><body><script>" + strings.Repeat("if(a<b)c++;", 60_000) + "</script><a href=/x>x</a></body></html>")
}

// TestScanAllocationsManyLessThan: a body with more '<' than the element
// limit is read in the lexer's one pass, not tokenized once more to count
// its elements.
func TestScanAllocationsManyLessThan(t *testing.T) {
	page := manyLessThanPage()
	p := Scan(page, "HeedBot", DefaultMaxElements)
	if !p.LinksOK || len(p.Links) != 1 {
		t.Fatalf("links %v ok %v", p.Links, p.LinksOK)
	}
	allocs := testing.AllocsPerRun(5, func() { Scan(page, "HeedBot", DefaultMaxElements) })
	if max := float64(len(p.Links) + 1); allocs > max {
		t.Errorf("Scan of a page with 60,000 '<' and %d link: %.0f allocations, want at most %.0f", len(p.Links), allocs, max)
	}
}

func BenchmarkScanManyLessThan(b *testing.B) {
	page := manyLessThanPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for range b.N {
		if p := Scan(page, "HeedBot", DefaultMaxElements); !p.LinksOK || len(p.Links) != 1 {
			b.Fatalf("links %v ok %v", p.Links, p.LinksOK)
		}
	}
}

package htmlpage

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// elementsIn counts the start tags of an HTML body.
func elementsIn(b []byte) int {
	z := html.NewTokenizer(bytes.NewReader(b))
	n := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return n
		case html.StartTagToken, html.SelfClosingTagToken:
			n++
		}
	}
}

// FuzzCut: the part parsed is a prefix of the body, all of it
// when the body is within the limit, and never more elements than the
// limit.
func FuzzCut(f *testing.F) {
	f.Add([]byte(strings.Repeat("<a href=/x>a</a>", 50)), 10)
	f.Add([]byte("<p>one<p>two<!-- <a> --><script>if (a<b) {}</script><p>three"), 2)
	f.Add([]byte("<<<<a>>>><b/><c"), 1)
	f.Fuzz(func(t *testing.T, body []byte, max int) {
		max = max%100 + 1
		if max < 1 {
			max = -max + 1
		}
		part, whole, _ := Cut(body, max)
		if !bytes.HasPrefix(body, part) {
			t.Fatalf("part %q is not a prefix of the body", part)
		}
		if whole != (len(part) == len(body)) {
			t.Fatalf("whole = %v with %d of %d bytes", whole, len(part), len(body))
		}
		if n := elementsIn(body); n <= max && !whole {
			t.Fatalf("a body of %d elements was cut at the limit of %d", n, max)
		}
		if !whole {
			if n := elementsIn(part); n > max {
				t.Fatalf("the part holds %d elements, over the limit of %d", n, max)
			}
		}
	})
}

// TestCutAllocations: finding where to cut a body with more '<' than
// the limit reads it in place.
func TestCutAllocations(t *testing.T) {
	page := manyLessThanPage()
	if _, whole, n := Cut(page, 3); whole || n != 3 {
		t.Fatalf("whole %v, %d elements", whole, n)
	}
	if _, whole, _ := Cut(page, DefaultMaxElements); !whole {
		t.Fatal("a page of 4 elements was cut")
	}
	if allocs := testing.AllocsPerRun(5, func() { Cut(page, DefaultMaxElements) }); allocs > 0 {
		t.Errorf("Cut of a page with 60,000 '<': %.0f allocations", allocs)
	}
}

// TestCutNULPastTheBufferLimit: a body with NUL bytes is read by the
// tokenizer with its buffer limit; a token over it is cut off with the
// rest of the body (the tokenizer may give the part of it that fits).
func TestCutNULPastTheBufferLimit(t *testing.T) {
	head := "<a>\x00<b><c><script>"
	body := []byte(head + strings.Repeat("x", lexMaxBody+10) + "</script><d><e><f>")
	part, whole, n := Cut(body, 5)
	if whole || n != 4 || !bytes.HasPrefix(part, []byte(head)) || len(part) > len(head)+lexMaxBody {
		t.Fatalf("whole %v, %d elements, part of %d bytes", whole, n, len(part))
	}
}

// BenchmarkCutManyLessThan finds where a page with 60,000 '<' in its
// script (more than DefaultMaxElements) would be cut.
func BenchmarkCutManyLessThan(b *testing.B) {
	page := manyLessThanPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for range b.N {
		if _, whole, _ := Cut(page, DefaultMaxElements); !whole {
			b.Fatal("cut")
		}
	}
}

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

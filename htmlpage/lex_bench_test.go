package htmlpage

import (
	"strings"
	"testing"
)

// scriptPage is a page of 200 KiB of inline script and 10 links.
func scriptPage() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><script>")
	for b.Len() < 200<<10 {
		b.WriteString("var x = function(a, b) { return a > b ? a : b; }; if (x < 3) { y = 'abc'; }\n")
	}
	b.WriteString("</script></head><body>")
	for i := range 10 {
		b.WriteString(`<a href="/p/` + strings.Repeat("1", i%3+1) + `">link</a>`)
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

// BenchmarkLexText reads a page's start tags where its 200 KiB are
// inline script, and where they are the same bytes as text in a p.
func BenchmarkLexText(b *testing.B) {
	script := scriptPage()
	text := []byte(strings.Replace(strings.Replace(string(script), "<script>", "<p>", 1), "</script>", "</p>", 1))
	for _, p := range []struct {
		name string
		page []byte
	}{{"script", script}, {"text", text}} {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(p.page)))
			b.ReportAllocs()
			for range b.N {
				n := 0
				for l := (lexer{b: p.page}); l.next(); {
					n++
				}
				if n != 14 {
					b.Fatalf("%d tags", n)
				}
			}
		})
	}
}

package htmlpage

import (
	"strings"
	"testing"
)

// escapedLinksPage is a page of n links whose hrefs hold sep between two
// query parameters: "&amp;" as most query strings in HTML are written.
func escapedLinksPage(n int, sep string) []byte {
	return []byte("<html><body>" + strings.Repeat(`<li><a href="/s?q=heed`+sep+`page=2">next</a></li>`+"\n", n) + "</body></html>")
}

// BenchmarkScanEscapedLinks reads the links of a page of 100 links whose
// hrefs hold a character reference ("&amp;"), and of the same page
// without one (";").
func BenchmarkScanEscapedLinks(b *testing.B) {
	for _, sep := range []string{"&amp;", ";"} {
		p := escapedLinksPage(100, sep)
		b.Run(sep, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(p)))
			for range b.N {
				if s := Scan(p, "HeedBot", DefaultMaxElements); !s.LinksOK || len(s.Links) != 100 {
					b.Fatalf("%d links, ok %v", len(s.Links), s.LinksOK)
				}
			}
		})
	}
}

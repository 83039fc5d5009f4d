package pagerobots

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// benchPage is a 100 KiB HTML page with a meta robots element in its
// head, like the pages heed's crawler reads.
func benchPage() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head><title>t</title>\n<meta name=\"robots\" content=\"noindex, nofollow\">\n</head><body>\n")
	for b.Len() < 100<<10 {
		b.WriteString("<p class=\"x\">Some text of the page, <a href=\"/a/b?c=d\">a link</a>, more text.</p>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// BenchmarkScanHTML reads the meta robots elements of a 100 KiB page; its
// peer, BenchmarkGoqueryParse, is the parse the crawler already does for
// OnHTML callbacks on the same page:
//
//	go test -run='^$' -bench=. -benchmem ./pagerobots/
func BenchmarkScanHTML(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		ds, err := ScanHTML(bytes.NewReader(page), "ExampleBot", 0)
		if err != nil || !ds.Has("nofollow") {
			b.Fatal(ds, err)
		}
	}
}

func BenchmarkGoqueryParse(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := goquery.NewDocumentFromReader(bytes.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	}
}

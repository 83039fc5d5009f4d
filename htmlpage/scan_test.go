package htmlpage

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/heedcrawl/heed/pagerobots"
)

// domLinks is what FollowLinks reads from the DOM: every a[href]
// element's href and src, and the first base[href].
func domLinks(t testing.TB, body []byte) (links []Link, base string, hasBase bool) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		src, _ := s.Attr("src")
		links = append(links, Link{Href: href, Src: src})
	})
	base, hasBase = doc.Find("base[href]").Attr("href")
	return links, base, hasBase
}

// sameLinks compares the links as sets: the DOM may move an element
// (foster parenting) or clone it (misnested formatting tags).
func sameLinks(a, b []Link) bool {
	key := func(l Link) string { return l.Href + "\x00" + l.Src }
	set := func(ls []Link) []string {
		var out []string
		for _, l := range ls {
			out = append(out, key(l))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(set(a), set(b))
}

var scanCases = []struct {
	name, html string
	ok         bool
}{
	{"plain", `<html><body><a href="/a">a</a><a href='b?x=1&amp;y=2'>b</a><a>none</a><A HREF=/c>c</A></body></html>`, true},
	{"empty href uses src", `<a href="" src="/img">x</a><a href src=/s2>y</a>`, true},
	{"duplicate attributes", `<a href="/first" href="/second" src=1 src=2>x</a>`, true},
	{"base", `<head><base href="http://other.example/dir/"></head><a href="x">x</a>`, true},
	{"base without href", `<base target=_blank><base href="/b/"><a href=x>x</a>`, true},
	{"two bases", `<base href="/one/"><table><tr><td><base href="/two/">`, false},
	{"raw text", `<script>document.write('<a href="/no">')</script><style>a{}</style><textarea><a href="/no2"></textarea><title><a href=/no3></title><noscript><a href=/no4></noscript><a href=/yes>`, true},
	{"comment", `<!-- <a href="/no"> --><a href="/yes">`, true},
	{"misnested", `<p><a href="/clone">x</p>y<b><a href="/n">z</b>w</a>`, true},
	{"foster parented", `<table><tr><td><a href="/in">in</a></td></tr><a href="/out">out</a></table>`, true},
	{"template", `<template><a href="/t">t</a></template>`, true},
	{"select", `<select><a href="/dropped"></select>`, false},
	{"svg", `<svg><a xlink:href="/x"><title><a href="/y"></title></a></svg>`, false},
	{"math", `<math><a href="/m"></a></math>`, false},
	{"frameset", `<frameset><a href="/f"></frameset>`, false},
	{"nul", "<a href=\"/a\x00b\">x</a>", false},
	{"unterminated", `<a href="/open`, true},
	{"entities", `<a href="/&eacute;?q=&lt;&#x41;&amp">x</a>`, true},
	{"meta robots", "<head>\n<meta name=\"robots\" content=\"nofollow\">\n<META NAME=HeedBot CONTENT='noindex, nofollow'>\n<meta name=robots>\n<meta charset=utf-8><meta name=\"&#114;obots\" content=noarchive></head><a href=/x>", true},
	{"meta in svg", "<svg><meta name=robots content=noindex></svg>", false},
}

// scanLinks is Scan's links, as FollowLinks uses them.
func scanLinks(body []byte) (links []Link, base string, hasBase, ok bool) {
	p := Scan(body, "", DefaultMaxElements)
	return p.Links, p.Base, p.HasBase, p.LinksOK
}

// checkMeta compares Scan's meta robots with pagerobots.ScanHTML's.
func checkMeta(t testing.TB, body []byte) {
	want, _ := pagerobots.ScanHTML(bytes.NewReader(body), "HeedBot", 0)
	if got := Scan(body, "HeedBot", DefaultMaxElements).Meta; !reflect.DeepEqual(got, want) {
		t.Errorf("meta robots: scan %+v\nScanHTML %+v", got, want)
	}
}

func TestScanMetaAgreesWithPagerobots(t *testing.T) {
	for _, tt := range scanCases {
		t.Run(tt.name, func(t *testing.T) { checkMeta(t, []byte(tt.html)) })
	}
	many := strings.Repeat("<meta name=robots content=noindex>\n", pagerobots.MaxStatements+5) + "<a href=/after>"
	checkMeta(t, []byte(many))
	if links, _, _, ok := scanLinks([]byte(many)); !ok || len(links) != 1 {
		t.Errorf("links after the statement limit: %v %v", links, ok)
	}
}

func TestScanLinksAgreesWithTheDOM(t *testing.T) {
	for _, tt := range scanCases {
		t.Run(tt.name, func(t *testing.T) {
			links, base, hasBase, ok := scanLinks([]byte(tt.html))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			dl, db, dhb := domLinks(t, []byte(tt.html))
			if !sameLinks(links, dl) || base != db || hasBase != dhb {
				t.Errorf("scan: %q base %q %v\n DOM: %q base %q %v", links, base, hasBase, dl, db, dhb)
			}
		})
	}
}

// FuzzScanLinks checks that wherever Scan answers for links, it finds the links
// and the base the DOM does.
func FuzzScanLinks(f *testing.F) {
	for _, tt := range scanCases {
		f.Add([]byte(tt.html))
	}
	f.Add([]byte(strings.Repeat(`<div><a href="/p">p</a>`, 50)))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkMeta(t, body)
		links, base, hasBase, ok := scanLinks(body)
		if !ok {
			return
		}
		dl, db, dhb := domLinks(t, body)
		if !sameLinks(links, dl) || base != db || hasBase != dhb {
			t.Errorf("scan: %q base %q %v\n DOM: %q base %q %v", links, base, hasBase, dl, db, dhb)
		}
	})
}

// benchPage is a page like the throughput benchmark's: 8 KiB, 10 links.
func benchPage() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>g1 page 7</title></head>\n<body>\n<h1>g1 page 7</h1>\n<ul>\n")
	for i := range 10 {
		b.WriteString(`<li><a href="/p/` + strings.Repeat("1", i%3+1) + `">link</a></li>` + "\n")
	}
	b.WriteString("</ul>\n<p>")
	for b.Len() < 8<<10-20 {
		b.WriteString("heed crawls politely and every skipped url is accounted ")
	}
	b.WriteString("</p>\n</body></html>\n")
	return []byte(b.String())
}

// BenchmarkPageLinks reads the links of one page: the DOM way FollowLinks
// used on every page (goquery's document, a[href], base[href]), and the
// streaming scanner it uses now when nothing else needs the DOM.
func BenchmarkPageLinks(b *testing.B) {
	page := benchPage()
	b.Run("dom", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(page)))
		for range b.N {
			if links, _, _ := domLinks(b, page); len(links) != 10 {
				b.Fatalf("%d links", len(links))
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(page)))
		for range b.N {
			if links, _, _, ok := scanLinks(page); !ok || len(links) != 10 {
				b.Fatalf("%d links, ok %v", len(links), ok)
			}
		}
	})
}

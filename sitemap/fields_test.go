package sitemap

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestURLSetFields(t *testing.T) {
	got, rep := parseAll(t, fixture(t, "urlset-full.xml"), WithBase("https://example.com/catalog/sitemap.xml"))
	if len(got) != 3 || len(rep.Problems) != 0 {
		t.Fatalf("got %d entries, problems %v", len(got), rep.Problems)
	}
	shoes := got[0]
	wantTime := time.Date(2024, 3, 5, 10, 20, 30, 0, time.FixedZone("", 3600))
	if !shoes.LastMod.Equal(wantTime) || shoes.LastModRaw != "2024-03-05T10:20:30+01:00" {
		t.Errorf("lastmod %v %q", shoes.LastMod, shoes.LastModRaw)
	}
	if _, off := shoes.LastMod.Zone(); off != 3600 {
		t.Errorf("lastmod zone offset %d, want the written +01:00", off)
	}
	if shoes.ChangeFreq != "weekly" || !shoes.HasPriority || shoes.Priority != 0.8 {
		t.Errorf("changefreq %q priority %v %v", shoes.ChangeFreq, shoes.HasPriority, shoes.Priority)
	}
	wantImages := []Image{
		{Loc: "https://cdn.example.net/shoes.jpg", Caption: "Red shoes & laces", Title: "Shoes"},
		{Loc: "https://cdn.example.net/shoes-2.jpg"},
	}
	if !reflect.DeepEqual(shoes.Images, wantImages) {
		t.Errorf("images %+v", shoes.Images)
	}
	wantAlt := []Alternate{
		{Href: "https://example.com/de/catalog/shoes", Hreflang: "de"},
		{Href: "https://example.com/catalog/shoes", Hreflang: "en"},
	}
	if !reflect.DeepEqual(shoes.Alternates, wantAlt) {
		t.Errorf("alternates %+v", shoes.Alternates)
	}
	if shoes.Line != 9 || shoes.Sitemap != "https://example.com/catalog/sitemap.xml" {
		t.Errorf("line %d sitemap %q", shoes.Line, shoes.Sitemap)
	}

	video := got[1]
	if !video.LastMod.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) || video.HasPriority {
		t.Errorf("video entry lastmod %v priority %v", video.LastMod, video.HasPriority)
	}
	wantVideo := []Video{{
		ThumbnailLoc: "https://example.com/thumbs/1.jpg", Title: "Lacing shoes",
		Description: "How to lace shoes.", ContentLoc: "https://example.com/video/1.mp4",
		Duration: "600", FamilyFriendly: "yes", Live: "no", Tags: []string{"shoes", "laces"},
	}}
	if !reflect.DeepEqual(video.Videos, wantVideo) {
		t.Errorf("videos %+v", video.Videos)
	}

	news := got[2].News
	wantNews := &News{
		PublicationName: "The Example Times", PublicationLanguage: "en", Title: "Shoes are back",
		PublicationDate: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC), PublicationDateRaw: "2024-03-05",
		Keywords: "shoes, fashion",
	}
	if !reflect.DeepEqual(news, wantNews) {
		t.Errorf("news %+v", news)
	}
}

func TestIndexFields(t *testing.T) {
	got, _ := parseAll(t, fixture(t, "index.xml"))
	if len(got) != 2 || got[0].Kind != KindSitemap || !got[0].LastMod.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) || !got[1].LastMod.IsZero() {
		t.Fatalf("%+v", got)
	}
}

func TestFeedDates(t *testing.T) {
	rss, _ := parseAll(t, fixture(t, "feed-rss.xml"))
	want := []time.Time{
		time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 5, 14, 0, 0, 0, time.UTC), // 09:00 EST
		time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),  // dc:date
	}
	for i, e := range rss {
		if !e.LastMod.Equal(want[i]) {
			t.Errorf("rss item %d lastmod %v, want %v", i, e.LastMod, want[i])
		}
	}
	atom, _ := parseAll(t, fixture(t, "feed-atom.xml"), WithBase("https://example.com/feed.atom"))
	wantAtom := []time.Time{
		time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 4, 13, 0, 0, 0, time.UTC), // published, as no updated
	}
	for i, e := range atom {
		if !e.LastMod.Equal(wantAtom[i]) {
			t.Errorf("atom entry %d lastmod %v, want %v", i, e.LastMod, wantAtom[i])
		}
	}
}

func TestTextLines(t *testing.T) {
	got, _ := parseAll(t, fixture(t, "text.txt"), WithBase("https://example.com/sitemap.txt"))
	lines := []int{1, 3, 5, 6, 7, 8}
	for i, e := range got {
		if e.Line != lines[i] {
			t.Errorf("entry %q on line %d, want %d", e.Loc, e.Line, lines[i])
		}
	}
}

func TestXMLLinesAfterLeadingBlankLines(t *testing.T) {
	got, _ := parseAll(t, []byte("\n\n<urlset "+ns+">\n<url>\n<loc>https://example.com/a</loc></url></urlset>"))
	if len(got) != 1 || got[0].Line != 5 {
		t.Fatalf("%+v", got)
	}
}

func TestProblemsBounded(t *testing.T) {
	var doc []byte
	for range 500 {
		doc = append(doc, "not a url\n"...)
	}
	got, rep := parseAll(t, doc, WithMaxProblems(10))
	if len(got) != 500 || len(rep.Problems) != 10 || rep.ProblemsDropped != 490 || rep.Counts[ProblemInvalidURL] != 500 {
		t.Fatalf("entries %d, problems kept %d dropped %d counted %d", len(got), len(rep.Problems), rep.ProblemsDropped, rep.Counts[ProblemInvalidURL])
	}
}

func TestExtensionsBounded(t *testing.T) {
	doc := []byte("<urlset " + ns + "><url><loc>https://example.com/</loc>")
	for range maxExtensions + 5 {
		doc = append(doc, "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>"...)
	}
	doc = append(doc, "</url></urlset>"...)
	got, rep := parseAll(t, doc)
	if len(got) != 1 || len(got[0].Images) != maxExtensions || rep.Counts[ProblemExtensionLimit] != 5 {
		t.Fatalf("images %d, extension problems %d", len(got[0].Images), rep.Counts[ProblemExtensionLimit])
	}
}

func TestAlternatesAndImagesWithoutAURL(t *testing.T) {
	doc := []byte("<urlset " + ns + ` xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">` +
		`<url><loc>https://example.com/a</loc>` +
		`<xhtml:link rel="alternate" hreflang="de"/>` +
		`<xhtml:link rel="alternate" hreflang="fr" href=""/>` +
		`<xhtml:link rel="alternate" hreflang="es" href="https://example.com/&es;"/>` +
		`<xhtml:link rel="alternate" hreflang="en&x;" href="https://example.com/en"/>` +
		`<image:image><image:loc>https://example.com/&img;</image:loc></image:image>` +
		`<image:image><image:loc>https://example.com/i.png</image:loc><image:title>T &t; &amp; u</image:title></image:image>` +
		`</url></urlset>`)
	got, rep := parseAll(t, doc)
	if len(got) != 1 {
		t.Fatalf("entries %+v", got)
	}
	want := []Alternate{{Href: "https://example.com/en", Hreflang: "en&x;"}}
	if !reflect.DeepEqual(got[0].Alternates, want) {
		t.Errorf("alternates %+v, want %+v", got[0].Alternates, want)
	}
	wantImg := []Image{{Loc: "https://example.com/i.png", Title: "T &t; & u"}}
	if !reflect.DeepEqual(got[0].Images, wantImg) {
		t.Errorf("images %+v, want %+v", got[0].Images, wantImg)
	}
	if rep.Counts[ProblemAlternateHref] != 2 || rep.Counts[ProblemEntity] != 2 {
		t.Errorf("problems %v", rep.Problems)
	}
	for _, p := range rep.Problems {
		if p.Kind == ProblemEntity && p.Loc != "https://example.com/&es;" && p.Loc != "https://example.com/&img;" {
			t.Errorf("entity problem names %q, want the href as written", p.Loc)
		}
	}
}

func TestManyEntityNamesStillDropped(t *testing.T) {
	// Past maxEntityNames distinct names the scanner stops mapping them;
	// a loc with a reference must still never be delivered.
	var b strings.Builder
	b.WriteString("<urlset " + ns + ">")
	for i := range maxEntityNames + 10 {
		fmt.Fprintf(&b, "<url><loc>https://example.com/&e%d;</loc></url>", i)
	}
	b.WriteString("<url><loc>https://example.com/ok</loc></url></urlset>")
	got, rep := parseAll(t, []byte(b.String()))
	if len(got) != 1 || got[0].Loc != "https://example.com/ok" || rep.Counts[ProblemEntity] != maxEntityNames+10 {
		t.Fatalf("entries %d (first %q), entity problems %d", len(got), got[0].Loc, rep.Counts[ProblemEntity])
	}
}

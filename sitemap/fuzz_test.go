package sitemap

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte("<urlset " + ns + "><url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod><priority>0.5</priority></url></urlset>"),
		[]byte("<sitemapindex " + ns + "><sitemap><loc>https://example.com/s.xml</loc></sitemap></sitemapindex>"),
		[]byte("https://example.com/a\n/b\njunk\n"),
		[]byte("<rss><channel><item><link>https://example.com/r</link><pubDate>Tue, 05 Mar 2024 10:00:00 GMT</pubDate></item></channel></rss>"),
		[]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="/e"/><updated>2024-03-05T10:00:00Z</updated></entry></feed>`),
		[]byte("\ufeff<?xml version='1.0' encoding='latin1'?><urlset><url><loc><![CDATA[https://example.com/?a&b]]>&amp;&#65;</loc></url></urlset>"),
		[]byte("<urlset " + ns + "><url><loc>https://example.com/a</loc></url><url><loc>"),
		[]byte("<!DOCTYPE u [<!ENTITY e SYSTEM \"file:///x\">]><urlset " + ns + "><url><loc>http://h/&e;&amp;&z;</loc><xhtml:link rel=\"alternate\" href=\"&q;\"/></url></urlset>"),
	}
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// FuzzParse feeds every format, plain and gzipped, to Parse with small
// limits and checks what must hold for any input.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		const maxURLs, maxBytes, maxLoc, maxProblems = 50, 64 << 10, 100, 10
		if mode&1 != 0 {
			data = gzipBytes(data)
		}
		opts := []Option{WithMaxURLs(maxURLs), WithMaxBytes(maxBytes), WithMaxLocLength(maxLoc), WithMaxProblems(maxProblems)}
		if mode&2 != 0 {
			opts = append(opts, WithBase("https://example.com/dir/sitemap.xml"))
		}
		if mode&4 != 0 {
			opts = append(opts, WithScope(ScopeDirectory))
		}
		var n, urls, maps, rejected int
		rep, err := Parse(context.Background(), bytes.NewReader(data), func(e Entry) error {
			n++
			if e.Loc == "" {
				t.Errorf("entry without a loc: %+v", e)
			}
			if strings.Contains(e.Loc, entityOpen) {
				t.Errorf("loc with an unexpanded entity delivered: %q", e.Loc)
			}
			for _, a := range e.Alternates {
				if a.Href == "" || strings.Contains(a.Href, entityOpen) {
					t.Errorf("alternate without a known href delivered: %+v", a)
				}
			}
			if utf8.RuneCountInString(e.Loc) > maxLoc {
				t.Errorf("loc of %d characters delivered", utf8.RuneCountInString(e.Loc))
			}
			switch {
			case e.Problem != "":
				rejected++
			case e.Kind == KindSitemap:
				maps++
			default:
				urls++
				u, err := url.Parse(e.Loc)
				if err != nil || u.Host == "" || !strings.HasPrefix(strings.ToLower(u.Scheme), "http") {
					t.Errorf("entry without a problem is not an http URL: %q", e.Loc)
				}
			}
			return nil
		}, opts...)
		if err != nil || rep == nil {
			t.Fatalf("Parse: %v, %v", rep, err)
		}
		if n > maxURLs || rep.Entries != n || rep.URLs != urls || rep.Sitemaps != maps || rep.Rejected != rejected {
			t.Errorf("delivered %d (%d/%d/%d), report %d (%d/%d/%d)", n, urls, maps, rejected, rep.Entries, rep.URLs, rep.Sitemaps, rep.Rejected)
		}
		if len(rep.Problems) > maxProblems || rep.Bytes > maxBytes {
			t.Errorf("%d problems kept, %d bytes read", len(rep.Problems), rep.Bytes)
		}
		total := 0
		for _, c := range rep.Counts {
			total += c
		}
		if total != len(rep.Problems)+rep.ProblemsDropped {
			t.Errorf("counts %v sum to %d, problems %d + %d dropped", rep.Counts, total, len(rep.Problems), rep.ProblemsDropped)
		}
		if rep.Truncated != (rep.TruncatedBy != "") {
			t.Errorf("Truncated %v by %q", rep.Truncated, rep.TruncatedBy)
		}
	})
}

// FuzzWalk serves the fuzzed document at every URL, so every child it
// lists is itself again: loops, duplicates and limits all get exercised.
func FuzzWalk(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte("<sitemapindex><sitemap><loc>https://example.com/a</loc></sitemap><sitemap><loc>https://example.com/b</loc></sitemap><sitemap><loc>x</loc></sitemap></sitemapindex>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fetched := 0
		fetch := func(ctx context.Context, u string) (io.ReadCloser, error) {
			fetched++
			return io.NopCloser(bytes.NewReader(data)), nil
		}
		wr, err := Walk(context.Background(), []string{"https://example.com/sitemap.xml"}, fetch,
			func(Entry) error { return nil }, WithMaxSitemaps(20), WithMaxURLs(100), WithMaxBytes(64<<10))
		if err != nil || wr == nil {
			t.Fatalf("Walk: %v", err)
		}
		if fetched > 20 || len(wr.Sitemaps) != fetched {
			t.Fatalf("fetched %d, reports %d", fetched, len(wr.Sitemaps))
		}
	})
}

// FuzzParseDate checks that any text either parses or is refused, and
// that a refused date gives the zero time.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024", "2024-03-05T10:20:30.5+01:00", "Tue, 05 Mar 2024 10:00:00 GMT", "5 Mar 24 10:00 EST", "2024-03-05 10:20", ", , , ,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, note, ok := parseDate(s)
		if !ok && (!tm.IsZero() || note != "") {
			t.Fatalf("refused %q but returned %v %q", s, tm, note)
		}
	})
}

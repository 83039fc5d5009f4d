package sitemap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// parseAll parses data and collects every entry delivered.
func parseAll(t testing.TB, data []byte, opts ...Option) ([]Entry, *Report) {
	t.Helper()
	var got []Entry
	rep, err := Parse(context.Background(), bytes.NewReader(data), func(e Entry) error {
		got = append(got, e)
		return nil
	}, opts...)
	if err != nil {
		t.Fatalf("Parse returned %v; only visit and ctx may stop it", err)
	}
	if rep == nil {
		t.Fatal("Parse returned a nil Report")
	}
	return got, rep
}

// locs renders entries as "loc" or "loc !problem" (and "sitemap:" for a
// child sitemap), the shape the table below compares.
func locs(es []Entry) []string {
	var out []string
	for _, e := range es {
		s := e.Loc
		if e.Kind == KindSitemap {
			s = "sitemap:" + s
		}
		if e.Problem != "" {
			s += " !" + string(e.Problem)
		}
		out = append(out, s)
	}
	return out
}

func problemKinds(r *Report) []ProblemKind {
	var out []ProblemKind
	for _, p := range r.Problems {
		out = append(out, p.Kind)
	}
	return out
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func TestParseTable(t *testing.T) {
	base := WithBase("https://example.com/catalog/sitemap.xml")
	tests := []struct {
		name     string
		doc      string // "@name" reads testdata/name
		opts     []Option
		format   Format
		locs     []string
		problems []ProblemKind
		err      bool
		trunc    ProblemKind
	}{
		{
			name:   "urlset with every field",
			doc:    "@urlset-full.xml",
			opts:   []Option{base},
			format: FormatURLSet,
			locs: []string{
				"https://example.com/catalog/shoes?color=red&size=42",
				"https://example.com/catalog/video",
				"https://example.com/catalog/news/1",
			},
		},
		{
			name:   "sitemap index",
			doc:    "@index.xml",
			opts:   []Option{WithBase("https://example.com/sitemap.xml")},
			format: FormatIndex,
			locs:   []string{"sitemap:https://example.com/sitemaps/products.xml.gz", "sitemap:https://example.com/sitemaps/pages.xml"},
		},
		{
			name:   "BOM, declaration, comments, CDATA and entities",
			doc:    "\ufeff<?xml version='1.0'?>\n<!-- c -->\n<urlset " + ns + "><!-- c --><url><loc><![CDATA[https://example.com/a?b=1&c=2]]></loc></url><url><loc>https://example.com/&#x41;&#66;&amp;&lt;&gt;&quot;&apos;</loc></url></urlset>",
			format: FormatURLSet,
			locs:   []string{"https://example.com/a?b=1&c=2", `https://example.com/AB&<>"'`},
		},
		{
			name:     "missing namespace tolerated and reported",
			doc:      "<urlset><url><loc>https://example.com/a</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a"},
			problems: []ProblemKind{ProblemNamespace},
		},
		{
			name:     "wrong namespaces and an undeclared prefix, each reported once",
			doc:      `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>https://example.com/a</loc><image:image><image:loc>https://example.com/i.png</image:loc></image:image><image:image><image:loc>https://example.com/j.png</image:loc></image:image></url></urlset>`,
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a"},
			problems: []ProblemKind{ProblemNamespace, ProblemNamespace},
		},
		{
			name:   "unescaped ampersand tolerated",
			doc:    "<urlset " + ns + "><url><loc>https://example.com/?a=1&b=2</loc></url></urlset>",
			format: FormatURLSet,
			locs:   []string{"https://example.com/?a=1&b=2"},
		},
		{
			name:     "relative locs resolved against the sitemap",
			doc:      "<urlset " + ns + "><url><loc>/catalog/x</loc></url><url><loc>y</loc></url></urlset>",
			opts:     []Option{base},
			format:   FormatURLSet,
			locs:     []string{"https://example.com/catalog/x", "https://example.com/catalog/y"},
			problems: []ProblemKind{ProblemRelativeURL, ProblemRelativeURL},
		},
		{
			name:     "relative loc without a base is invalid",
			doc:      "<urlset " + ns + "><url><loc>/x</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"/x !invalid-url"},
			problems: []ProblemKind{ProblemInvalidURL},
		},
		{
			name:     "invalid URLs delivered flagged",
			doc:      "<urlset " + ns + "><url><loc>mailto:a@example.com</loc></url><url><loc>javascript:alert(1)</loc></url><url><loc>https://exa mple.com/</loc></url><url><loc>http://</loc></url><url><loc>https://example.com/ok</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"mailto:a@example.com !invalid-url", "javascript:alert(1) !invalid-url", "https://exa mple.com/ !invalid-url", "http:// !invalid-url", "https://example.com/ok"},
			problems: []ProblemKind{ProblemInvalidURL, ProblemInvalidURL, ProblemInvalidURL, ProblemInvalidURL},
		},
		{
			name:     "authority scope (default)",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/elsewhere</loc></url><url><loc>https://EXAMPLE.com:443/catalog/a</loc></url><url><loc>http://example.com/catalog/b</loc></url><url><loc>https://other.example.com/catalog/c</loc></url></urlset>",
			opts:     []Option{base},
			format:   FormatURLSet,
			locs:     []string{"https://example.com/elsewhere", "https://EXAMPLE.com:443/catalog/a", "http://example.com/catalog/b !out-of-scope", "https://other.example.com/catalog/c !out-of-scope"},
			problems: []ProblemKind{ProblemOutOfScope, ProblemOutOfScope},
		},
		{
			name:     "directory scope (the protocol's)",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/elsewhere</loc></url><url><loc>https://example.com/catalog/a</loc></url><url><loc>https://example.com/catalogue</loc></url><url><loc>https://example.com/catalog/</loc></url></urlset>",
			opts:     []Option{base, WithScope(ScopeDirectory)},
			format:   FormatURLSet,
			locs:     []string{"https://example.com/elsewhere !out-of-scope", "https://example.com/catalog/a", "https://example.com/catalogue !out-of-scope", "https://example.com/catalog/"},
			problems: []ProblemKind{ProblemOutOfScope, ProblemOutOfScope},
		},
		{
			name:   "no scope",
			doc:    "<urlset " + ns + "><url><loc>https://other.example.org/</loc></url></urlset>",
			opts:   []Option{base, WithScope(ScopeNone)},
			format: FormatURLSet,
			locs:   []string{"https://other.example.org/"},
		},
		{
			name:     "loc too long is cut and flagged",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/" + strings.Repeat("a", 30) + "</loc></url><url><loc>https://example.com/ok</loc></url></urlset>",
			opts:     []Option{WithMaxLocLength(25)},
			format:   FormatURLSet,
			locs:     []string{"https://example.com/aaaaa !loc-too-long", "https://example.com/ok"},
			problems: []ProblemKind{ProblemLocTooLong},
		},
		{
			name:     "bad lastmod, priority and changefreq reported, entry kept",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/a</loc><lastmod>last tuesday</lastmod><priority>1.5</priority><changefreq>sometimes</changefreq></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a"},
			problems: []ProblemKind{ProblemLastMod, ProblemChangeFreq, ProblemPriority},
		},
		{
			name:     "entry without loc skipped and reported",
			doc:      "<urlset " + ns + "><url><lastmod>2024-01-01</lastmod></url><url><loc>   </loc></url><url><loc>https://example.com/b</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/b"},
			problems: []ProblemKind{ProblemMissingLoc, ProblemMissingLoc},
		},
		{
			name:     "url in an index and sitemap in a urlset tolerated",
			doc:      "<sitemapindex " + ns + "><url><loc>https://example.com/page</loc></url><sitemap><loc>https://example.com/s.xml</loc></sitemap></sitemapindex>",
			format:   FormatIndex,
			locs:     []string{"https://example.com/page", "sitemap:https://example.com/s.xml"},
			problems: []ProblemKind{ProblemUnexpectedElement},
		},
		{
			name:     "malformed XML: entries before the error delivered",
			doc:      "<urlset " + ns + ">\n<url><loc>https://example.com/a</loc></url>\n<url><loc>https://example.com/b</loc></url>\n<url><loc>https://example.com/c</loc><</url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a", "https://example.com/b"},
			problems: []ProblemKind{ProblemMalformed},
			err:      true,
		},
		{
			name:     "document cut short",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/a</loc></url><url><loc>https://exam",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a"},
			problems: []ProblemKind{ProblemMalformed},
			err:      true,
		},
		{
			// encoding/xml, not strict, closes the open elements up to the
			// root on a mismatched end tag, and then fails.
			name:     "mismatched end tag: what was read is delivered, the error reported",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/a</lastmod></url><url><loc>https://example.com/b</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a"},
			problems: []ProblemKind{ProblemMalformed},
			err:      true,
		},
		{
			name:     "billion laughs: DOCTYPE ignored, entities not expanded",
			doc:      "@billion-laughs.xml",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/after"},
			problems: []ProblemKind{ProblemDoctype, ProblemEntity, ProblemEntity},
		},
		{
			name:     "undefined entity: the loc is dropped and reported, never listed as written",
			doc:      "<urlset " + ns + "><url><loc>&test;</loc></url><url><loc>http://host/&test;</loc></url><url><loc>http://host/a?b=1&amp;test;</loc></url><url><loc>http://host/ok</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"http://host/a?b=1&test;", "http://host/ok"},
			problems: []ProblemKind{ProblemEntity, ProblemEntity},
		},
		{
			name:   "entity in CDATA or a comment is text, not a reference",
			doc:    "<urlset " + ns + "><!-- &c; --><url><loc><![CDATA[http://host/&cd;]]></loc></url></urlset>",
			format: FormatURLSet,
			locs:   []string{"http://host/&cd;"},
		},
		{
			name:     "external entity in an RSS link and an Atom href",
			doc:      "<!DOCTYPE r [<!ENTITY e SYSTEM \"http://evil/\">]><rss><channel><item><link>http://host/&e;</link></item><item><link>http://host/r</link></item></channel></rss>",
			format:   FormatRSS,
			locs:     []string{"http://host/r"},
			problems: []ProblemKind{ProblemDoctype, ProblemEntity},
		},
		{
			name:     "external entity in an Atom href",
			doc:      "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><link href=\"http://host/&e;\"/></entry><entry><link href=\"http://host/a\"/></entry></feed>",
			format:   FormatAtom,
			locs:     []string{"http://host/a"},
			problems: []ProblemKind{ProblemEntity},
		},
		{
			name:     "latin-1 declared: converted and reported",
			doc:      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset " + ns + "><url><loc>https://example.com/caf\xe9</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/café"},
			problems: []ProblemKind{ProblemEncoding},
		},
		{
			name:     "unsupported encoding read as UTF-8 and reported",
			doc:      "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><urlset " + ns + "><url><loc>https://example.com/a</loc></url></urlset>",
			format:   FormatURLSet,
			locs:     []string{"https://example.com/a"},
			problems: []ProblemKind{ProblemEncoding},
		},
		{
			name:   "text sitemap with junk lines",
			doc:    "@text.txt",
			opts:   []Option{WithBase("https://example.com/sitemap.txt")},
			format: FormatText,
			locs: []string{
				"https://example.com/a", "https://example.com/b", "junk line here !invalid-url",
				"https://example.com/relative/c", "mailto:someone@example.com !invalid-url", "https://example.com/d",
			},
			problems: []ProblemKind{ProblemInvalidURL, ProblemRelativeURL, ProblemInvalidURL},
		},
		{
			name:     "text line not a path is not resolved",
			doc:      "https://example.com/a\nfoo.html\n",
			opts:     []Option{WithBase("https://example.com/sitemap.txt")},
			format:   FormatText,
			locs:     []string{"https://example.com/a", "foo.html !invalid-url"},
			problems: []ProblemKind{ProblemInvalidURL},
		},
		{
			name:   "RSS 2.0",
			doc:    "@feed-rss.xml",
			format: FormatRSS,
			locs:   []string{"https://example.com/blog/first", "https://example.com/blog/second?a=1&b=2", "https://example.com/blog/third"},
			// The fourth item has no link and a guid that is not a permalink.
			problems: []ProblemKind{ProblemMissingLoc},
		},
		{
			name:   "RSS 1.0",
			doc:    `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><link>https://example.com/</link></channel><item><link>https://example.com/one</link></item></rdf:RDF>`,
			format: FormatRSS,
			locs:   []string{"https://example.com/one"},
		},
		{
			name:     "Atom",
			doc:      "@feed-atom.xml",
			opts:     []Option{WithBase("https://example.com/feed.atom")},
			format:   FormatAtom,
			locs:     []string{"https://example.com/entries/1", "https://example.com/entries/2"},
			problems: []ProblemKind{ProblemRelativeURL},
		},
		{
			name:     "HTML error page",
			doc:      "<!DOCTYPE html><html><body>Not found</body></html>",
			format:   FormatUnknown,
			problems: []ProblemKind{ProblemDoctype, ProblemUnknownFormat},
			err:      true,
		},
		{
			name:     "empty",
			doc:      " \n\t\n",
			format:   FormatUnknown,
			problems: []ProblemKind{ProblemUnknownFormat},
			err:      true,
		},
		{
			name:     "binary",
			doc:      "\x00\x01\x02garbage",
			format:   FormatUnknown,
			problems: []ProblemKind{ProblemUnknownFormat},
			err:      true,
		},
		{
			name:     "UTF-16",
			doc:      "\xff\xfe<\x00u\x00",
			format:   FormatUnknown,
			problems: []ProblemKind{ProblemEncoding, ProblemUnknownFormat},
			err:      true,
		},
		{
			name:     "XML with no root element",
			doc:      "<?xml version=\"1.0\"?><!-- nothing -->",
			format:   FormatUnknown,
			problems: []ProblemKind{ProblemUnknownFormat},
			err:      true,
		},
		{
			name:     "max URLs: the entry past the limit reported, not delivered",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc></url><url><loc>https://example.com/3</loc></url></urlset>",
			opts:     []Option{WithMaxURLs(2)},
			format:   FormatURLSet,
			locs:     []string{"https://example.com/1", "https://example.com/2"},
			problems: []ProblemKind{ProblemMaxURLs},
			trunc:    ProblemMaxURLs,
		},
		{
			name:     "max bytes: the entry cut by the limit is not delivered",
			doc:      "<urlset " + ns + "><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc></url></urlset>",
			opts:     []Option{WithMaxBytes(int64(len("<urlset " + ns + "><url><loc>https://example.com/1</loc></url><url><loc>https://ex")))},
			format:   FormatURLSet,
			locs:     []string{"https://example.com/1"},
			problems: []ProblemKind{ProblemMaxBytes},
			trunc:    ProblemMaxBytes,
		},
		{
			name:     "max bytes in a text sitemap: a cut line is dropped",
			doc:      "https://example.com/1\nhttps://example.com/2\n",
			opts:     []Option{WithMaxBytes(30)},
			format:   FormatText,
			locs:     []string{"https://example.com/1"},
			problems: []ProblemKind{ProblemMaxBytes},
			trunc:    ProblemMaxBytes,
		},
		{
			name:   "a document exactly at the byte limit is whole",
			doc:    "https://example.com/1\n",
			opts:   []Option{WithMaxBytes(22)},
			format: FormatText,
			locs:   []string{"https://example.com/1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.doc)
			if name, ok := strings.CutPrefix(tt.doc, "@"); ok {
				data = fixture(t, name)
			}
			got, rep := parseAll(t, data, tt.opts...)
			if rep.Format != tt.format {
				t.Errorf("format %v, want %v", rep.Format, tt.format)
			}
			if g := locs(got); !slices.Equal(g, tt.locs) {
				t.Errorf("entries:\n got %q\nwant %q", g, tt.locs)
			}
			if g := problemKinds(rep); !slices.Equal(g, tt.problems) {
				t.Errorf("problems %v, want %v\n%v", g, tt.problems, rep.Problems)
			}
			if (rep.Err != nil) != tt.err {
				t.Errorf("Err = %v, want error: %v", rep.Err, tt.err)
			}
			if rep.Truncated != (tt.trunc != "") || rep.TruncatedBy != tt.trunc {
				t.Errorf("Truncated %v by %q, want by %q", rep.Truncated, rep.TruncatedBy, tt.trunc)
			}
			var urls, maps, rejected int
			for _, e := range got {
				switch {
				case e.Problem != "":
					rejected++
				case e.Kind == KindSitemap:
					maps++
				default:
					urls++
				}
			}
			if rep.URLs != urls || rep.Sitemaps != maps || rep.Rejected != rejected || rep.Entries != len(got) {
				t.Errorf("report counts %d/%d/%d/%d, delivered %d/%d/%d/%d", rep.URLs, rep.Sitemaps, rep.Rejected, rep.Entries, urls, maps, rejected, len(got))
			}
		})
	}
}

package pagerobots

import (
	"reflect"
	"strings"
	"testing"
)

type want struct {
	name, value, agent string
	known              bool
	line               int
}

func got(ds Directives) []want {
	var out []want
	for _, d := range ds.List {
		out = append(out, want{d.Name, d.Value, d.Agent, d.Known, d.Line})
	}
	return out
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []want
		stmt   string // the first directive's statement
	}{
		{"one directive", []string{"noindex"}, []want{{"noindex", "", "", true, 0}}, "X-Robots-Tag: noindex"},
		{"comma list, case and space", []string{" NoIndex ,nofollow,, "}, []want{{"noindex", "", "", true, 0}, {"nofollow", "", "", true, 0}}, ""},
		{"several field lines", []string{"noarchive", "nosnippet"}, []want{{"noarchive", "", "", true, 0}, {"nosnippet", "", "", true, 0}}, ""},
		{"agent prefix for us", []string{"ExampleBot: nofollow"}, []want{{"nofollow", "", "ExampleBot", true, 0}}, "X-Robots-Tag: ExampleBot: nofollow"},
		{"agent prefix, case-insensitive, whole list", []string{"examplebot: noindex, noai"}, []want{{"noindex", "", "examplebot", true, 0}, {"noai", "", "examplebot", true, 0}}, ""},
		{"another agent's directives ignored", []string{"googlebot: noindex", "nofollow"}, []want{{"nofollow", "", "", true, 0}}, ""},
		{"agents switch within a line", []string{"otherbot: noindex, ExampleBot: noimageai, nosnippet"}, []want{{"noimageai", "", "ExampleBot", true, 0}, {"nosnippet", "", "ExampleBot", true, 0}}, ""},
		{"unavailable_after is no agent", []string{"unavailable_after: 25 Jun 2030 15:00:00 PST"}, []want{{"unavailable_after", "25 Jun 2030 15:00:00 PST", "", true, 0}}, ""},
		{"RFC 850 date keeps its comma", []string{"unavailable_after: Friday, 25-Jun-30 15:00:00 GMT, noai"}, []want{{"unavailable_after", "Friday, 25-Jun-30 15:00:00 GMT", "", true, 0}, {"noai", "", "", true, 0}}, ""},
		{"max-snippet value", []string{"max-snippet: 20"}, []want{{"max-snippet", "20", "", true, 0}}, ""},
		{"unknown kept", []string{"noindex, nofrobnicate"}, []want{{"noindex", "", "", true, 0}, {"nofrobnicate", "", "", false, 0}}, ""},
		{"agent with digits", []string{"MJ12bot: noindex"}, nil, ""},
		{"empty", []string{""}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := ParseHeader("ExampleBot", tt.values)
			if g := got(ds); !reflect.DeepEqual(g, tt.want) {
				t.Fatalf("got %+v, want %+v", g, tt.want)
			}
			if tt.stmt != "" && ds.List[0].Statement != tt.stmt {
				t.Errorf("statement %q, want %q", ds.List[0].Statement, tt.stmt)
			}
			for _, d := range ds.List {
				if d.Source != SourceHeader {
					t.Errorf("source %q", d.Source)
				}
			}
		})
	}
}

func TestParseMeta(t *testing.T) {
	tests := []struct {
		name, meta, content string
		want                []want
	}{
		{"robots", "robots", "noindex, nofollow", []want{{"noindex", "", "", true, 7}, {"nofollow", "", "", true, 7}}},
		{"robots any case", " ROBOTS ", "NONE", []want{{"none", "", "", true, 7}}},
		{"our token", "examplebot", "noarchive", []want{{"noarchive", "", "examplebot", true, 7}}},
		{"another crawler", "googlebot", "noindex", nil},
		{"not robots", "description", "noindex", nil},
		{"unknown and value", "robots", "max-image-preview:large, foo", []want{{"max-image-preview", "large", "", true, 7}, {"foo", "", "", false, 7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := ParseMeta("ExampleBot", tt.meta, tt.content, 7)
			if g := got(ds); !reflect.DeepEqual(g, tt.want) {
				t.Fatalf("got %+v, want %+v", g, tt.want)
			}
		})
	}
}

func TestHasFindsImpliedDirectives(t *testing.T) {
	ds := ParseHeader("ExampleBot", []string{"none"})
	for _, n := range []string{"noindex", "nofollow", "NOFOLLOW", "none"} {
		d, ok := ds.Find(n)
		if !ok || d.Name != "none" {
			t.Errorf("Find(%q) = %+v, %v; want the none directive", n, d, ok)
		}
	}
	if ds.Has("noarchive") {
		t.Error("none does not say noarchive")
	}
	if !ParseHeader("x", []string{"nocache"}).Has("noarchive") {
		t.Error("nocache says noarchive")
	}
	if d, _ := ds.Find("nofollow"); d.String() != `"none" in X-Robots-Tag: none` {
		t.Errorf("String %q", d.String())
	}
}

func TestScanHTML(t *testing.T) {
	page := "<!doctype html>\n<html><head>\n<title>t</title>\n" +
		"<meta name=\"description\" content=\"noindex\">\n" +
		"<META NAME=\"Robots\" CONTENT=\"noindex,\n nofollow\">\n" +
		"<meta name=\"googlebot\" content=\"noarchive\">\n" +
		"<meta name=\"ExampleBot\" content=\"noai\" />\n" +
		"<meta name=robots>\n" +
		"</head><body>\n<p>x</p>\n<meta name=\"robots\" content=\"noimageindex\">\n</body></html>"
	ds, err := ScanHTML(strings.NewReader(page), "examplebot", 0)
	if err != nil {
		t.Fatal(err)
	}
	w := []want{
		{"noindex", "", "", true, 5}, {"nofollow", "", "", true, 5},
		{"noai", "", "ExampleBot", true, 8},
		{"noimageindex", "", "", true, 12},
	}
	if g := got(ds); !reflect.DeepEqual(g, w) {
		t.Fatalf("got %+v\nwant %+v", g, w)
	}
	if s := ds.List[0].Statement; s != `meta name="Robots" content="noindex,\n nofollow"` {
		t.Errorf("statement %q", s)
	}
	// The byte limit stops the scan.
	ds, _ = ScanHTML(strings.NewReader(page), "examplebot", int64(strings.Index(page, "<meta name=\"ExampleBot\"")))
	if len(ds.List) != 2 {
		t.Errorf("limited scan read %+v", ds.List)
	}
}

func TestScanHTMLBounded(t *testing.T) {
	page := strings.Repeat(`<meta name="robots" content="noindex">`, MaxStatements+10)
	ds, err := ScanHTML(strings.NewReader(page), "x", 0)
	if err != nil || len(ds.List) != MaxStatements {
		t.Fatalf("%d directives, err %v", len(ds.List), err)
	}
}

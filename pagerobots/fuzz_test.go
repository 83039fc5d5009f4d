package pagerobots

import (
	"strings"
	"testing"
)

// FuzzParseHeader checks what must hold for any X-Robots-Tag value: no
// panic, every directive lower-case and non-empty, with its statement.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"noindex", "ExampleBot: nofollow, noai", "unavailable_after: Friday, 25-Jun-30 15:00:00 GMT", "a:b:c,,:", "otherbot: none, examplebot: noarchive"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ds := ParseHeader("ExampleBot", []string{v, v})
		for _, d := range ds.List {
			if d.Name == "" || d.Name != strings.ToLower(d.Name) || d.Source != SourceHeader || !strings.HasPrefix(d.Statement, HeaderName+": ") {
				t.Fatalf("bad directive %+v from %q", d, v)
			}
			if d.Agent != "" && !strings.EqualFold(d.Agent, "ExampleBot") {
				t.Fatalf("directive for another agent kept: %+v", d)
			}
		}
	})
}

// FuzzScanHTML checks that any document is read without error or panic
// and that every directive found has a line inside the document.
func FuzzScanHTML(f *testing.F) {
	for _, s := range []string{`<meta name="robots" content="noindex">`, "<html>\n<meta name=ExampleBot content='nofollow,none'>", "<meta name='robots' content", "<!--<meta name=robots content=noindex>-->"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		ds, err := ScanHTML(strings.NewReader(doc), "ExampleBot", 1<<16)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(doc, "\n") + 1
		for _, d := range ds.List {
			if d.Line < 1 || d.Line > lines || d.Source != SourceMeta || d.Name == "" {
				t.Fatalf("bad directive %+v (document has %d lines)", d, lines)
			}
		}
	})
}

package crawler

import (
	"net/url"
	"testing"
)

// TestAbsoluteURL: links resolve against the page's URL, or its base
// href once the page is parsed, with htmlpage.Resolve's repairs (its
// tests and fuzz target cover the resolution itself).
func TestAbsoluteURL(t *testing.T) {
	page, _ := url.Parse("http://a.test/dir/page")
	r := &Response{URL: page, Body: []byte(`<html><head><base href="/other/"></head></html>`)}
	if got := r.AbsoluteURL("x\n/y"); got != "http://a.test/dir/x/y" {
		t.Errorf("before the parse: %q", got)
	}
	r.Doc()
	for link, want := range map[string]string{"x": "http://a.test/other/x", "/bad%zz": "http://a.test/bad%25zz", "mailto:a@b": ""} {
		if got := r.AbsoluteURL(link); got != want {
			t.Errorf("AbsoluteURL(%q) = %q, want %q", link, got, want)
		}
	}
}

// BenchmarkAbsoluteURL resolves the links of a page as FollowLinks does:
// an absolute path, and an absolute URL to another host.
func BenchmarkAbsoluteURL(b *testing.B) {
	u, _ := url.Parse("http://127.0.0.2:41234/p/17")
	r := &Response{URL: u}
	b.ReportAllocs()
	for b.Loop() {
		if r.AbsoluteURL("/p/123") == "" || r.AbsoluteURL("http://127.0.0.3:41234/p/5") == "" {
			b.Fatal("no URL")
		}
	}
}

package crawler

import (
	"net/url"
	"strings"
	"testing"
)

// TestAbsoluteURLRepairsWhatCanonicalizeRepairs: relative links with a
// stray "%" or a raw tab or newline are resolved (and then repaired by
// frontier.Canonicalize as it documents), not kept as written and
// logged as invalid with no authority.
func TestAbsoluteURLRepairsWhatCanonicalizeRepairs(t *testing.T) {
	base, _ := url.Parse("http://a.test/dir/page")
	r := &Response{URL: base}
	for _, tc := range []struct{ link, want string }{
		{"/bad%zz%", "http://a.test/bad%25zz%25"},
		{"/a\tb", "http://a.test/ab"},
		{"x\n/y", "http://a.test/dir/x/y"},
		{"/ok%20fine", "http://a.test/ok%20fine"},
		{"rel%2", "http://a.test/dir/rel%252"},
	} {
		if got := r.AbsoluteURL(tc.link); got != tc.want {
			t.Errorf("AbsoluteURL(%q) = %q, want %q", tc.link, got, tc.want)
		}
	}
}

// FuzzAbsoluteURL: any link resolves to "", itself (invalid, to be
// recorded), or an http(s) URL Go can parse, without a panic.
func FuzzAbsoluteURL(f *testing.F) {
	for _, s := range []string{"/bad%zz%", "/a\tb", "http://x/%", "../../%%", "//h\\@g/", ""} {
		f.Add(s)
	}
	base, _ := url.Parse("http://a.test/dir/page")
	f.Fuzz(func(t *testing.T, link string) {
		r := &Response{URL: base}
		got := r.AbsoluteURL(link)
		if got == "" || got == strings.TrimSpace(link) {
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			t.Fatalf("AbsoluteURL(%q) = %q: %v", link, got, err)
		}
	})
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

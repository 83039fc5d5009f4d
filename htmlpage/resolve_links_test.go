package htmlpage

import (
	"net/url"
	"strings"
	"testing"
)

// TestResolveRepairsWhatCanonicalizeRepairs: relative links with a stray
// "%" or a raw tab or newline are resolved (and then repaired by
// frontier.Canonicalize as it documents), not kept as written and logged
// as invalid with no authority; links that are not crawlable resolve to
// "".
func TestResolveRepairsWhatCanonicalizeRepairs(t *testing.T) {
	base, _ := url.Parse("http://a.test/dir/page")
	for _, tc := range []struct{ link, want string }{
		{"/bad%zz%", "http://a.test/bad%25zz%25"},
		{"/a\tb", "http://a.test/ab"},
		{"x\n/y", "http://a.test/dir/x/y"},
		{"/ok%20fine", "http://a.test/ok%20fine"},
		{"rel%2", "http://a.test/dir/rel%252"},
		{"  ../up#frag ", "http://a.test/up"},
		{"#top", ""},
		{" ", ""},
		{"mailto:x@y", ""},
		{"javascript:void(0)", ""},
		{"http://[::1", "http://[::1"}, // kept as written, to be recorded as invalid
	} {
		if got := Resolve(base, tc.link); got != tc.want {
			t.Errorf("Resolve(%q) = %q, want %q", tc.link, got, tc.want)
		}
	}
}

// TestResolveNilBase: without a base, absolute links resolve and relative
// ones are not crawlable; nothing panics.
func TestResolveNilBase(t *testing.T) {
	for link, want := range map[string]string{
		"http://a.test/p#f":  "http://a.test/p",
		"https://a.test/%zz": "https://a.test/%25zz",
		"/p":                 "",
		"p":                  "",
	} {
		if got := Resolve(nil, link); got != want {
			t.Errorf("Resolve(nil, %q) = %q, want %q", link, got, want)
		}
	}
}

// TestBaseOf: a base href is resolved against the page; none, or one that
// does not parse, leaves the page's URL.
func TestBaseOf(t *testing.T) {
	page, _ := url.Parse("http://a.test/dir/page")
	for _, tc := range []struct {
		href string
		has  bool
		want string
	}{
		{"", false, "http://a.test/dir/page"},
		{" /other/ ", true, "http://a.test/other/"},
		{"http://b.test/x/", true, "http://b.test/x/"},
		{"http://[::1", true, "http://a.test/dir/page"},
		{"/ignored/", false, "http://a.test/dir/page"},
	} {
		if got := BaseOf(page, tc.href, tc.has).String(); got != tc.want {
			t.Errorf("BaseOf(%q, %v) = %q, want %q", tc.href, tc.has, got, tc.want)
		}
	}
	if BaseOf(nil, "/x", true) != nil {
		t.Error("BaseOf of no page is not nil")
	}
}

// TestLinkRel: an element's rel applies to its own link only.
func TestLinkRel(t *testing.T) {
	for _, tc := range []struct{ href, rel, link, want string }{
		{"/a", "nofollow", "/a", "nofollow"},
		{" /a ", "nofollow", "/a", "nofollow"},
		{"/a", "nofollow", "/b", ""},
		{"", "nofollow", "", ""},
		{"/a", "", "/a", ""},
	} {
		if got := LinkRel(tc.href, tc.rel, tc.link); got != tc.want {
			t.Errorf("LinkRel(%q, %q, %q) = %q, want %q", tc.href, tc.rel, tc.link, got, tc.want)
		}
	}
}

// FuzzResolve: any link resolves to "", itself (invalid, to be
// recorded), or an http(s) URL Go can parse, without a panic.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"/bad%zz%", "/a\tb", "http://x/%", "../../%%", "//h\\@g/", ""} {
		f.Add(s)
	}
	base, _ := url.Parse("http://a.test/dir/page")
	f.Fuzz(func(t *testing.T, link string) {
		got := Resolve(base, link)
		if got == "" || got == strings.TrimSpace(link) {
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			t.Fatalf("Resolve(%q) = %q: %v", link, got, err)
		}
	})
}

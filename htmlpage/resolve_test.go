package htmlpage

import (
	"net/url"
	"testing"
)

// resolveSlow is crawler's Response.AbsoluteURL resolution by net/url,
// without its repair of references net/url refuses.
func resolveSlow(base *url.URL, link string) (string, bool) {
	u, err := base.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}

var resolveCases = []struct{ base, link string }{
	{"http://a.example/x/y", "/p/12"},
	{"http://a.example/x/y", "/p/12?a=1&b=2"},
	{"http://a.example:8080/", "/p/12#top"},
	{"https://a.example/", "http://b.example:81/q?x=1#f"},
	{"https://a.example/", "https://b.example"},
	{"https://a.example/", "https://b.example/p/q.html"},
	{"https://a.example/", "https://b.example?x"},
	{"https://a.example/", "https://B.example/"},
	{"http://a.example/x/", "/p/../q"},
	{"http://a.example/x/", "/p/./q"},
	{"http://a.example/x/", "/p//q"},
	{"http://a.example/x/", "/p%41"},
	{"http://a.example/x/", "/p?"},
	{"http://a.example/x/", "/p?q#"},
	{"http://a.example/x/", "/p q"},
	{"http://a.example/x/", "//b.example/p"},
	{"http://u:p@a.example/x/", "/p"},
	{"http://[::1]:80/", "/p"},
	{"http://a.example/", "/é"},
	{"http://a.example/", "/p;x=1"},
	{"http://a.example/", "http://a.example:/p"},
	{"http://a.example/", "http://:80/p"},
	{"http://a.example/", "http://a.example/p/."},
	{"http://a.example/", "/p?a=%zz"},
}

// TestResolvePlain checks the fast path against net/url on hand-picked
// links: wherever it answers, net/url answers the same, and it answers
// the plain links a crawl mostly meets.
func TestResolvePlain(t *testing.T) {
	for _, c := range resolveCases {
		base, err := url.Parse(c.base)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ResolvePlain(base, c.link)
		want, wantOK := resolveSlow(base, c.link)
		if ok && (!wantOK || got != want) {
			t.Errorf("ResolvePlain(%q, %q) = %q; net/url: %q, %v", c.base, c.link, got, want, wantOK)
		}
	}
	for _, c := range resolveCases[:6] {
		base, _ := url.Parse(c.base)
		if _, ok := ResolvePlain(base, c.link); !ok {
			t.Errorf("ResolvePlain(%q, %q) gave up on a plain link", c.base, c.link)
		}
	}
}

// FuzzResolvePlain checks that the fast path, wherever it answers,
// answers what net/url does.
func FuzzResolvePlain(f *testing.F) {
	for _, c := range resolveCases {
		f.Add(c.base, c.link)
	}
	f.Fuzz(func(t *testing.T, rawBase, link string) {
		base, err := url.Parse(rawBase)
		if err != nil || !base.IsAbs() {
			return
		}
		got, ok := ResolvePlain(base, link)
		if !ok {
			return
		}
		want, wantOK := resolveSlow(base, link)
		if !wantOK || got != want {
			t.Fatalf("ResolvePlain(%q, %q) = %q; net/url: %q, %v", rawBase, link, got, want, wantOK)
		}
	})
}

// BenchmarkResolvePlain resolves the links of a page as FollowLinks
// does: an absolute path, and an absolute URL to another host.
func BenchmarkResolvePlain(b *testing.B) {
	u, _ := url.Parse("http://127.0.0.2:41234/p/17")
	b.ReportAllocs()
	for b.Loop() {
		if a, ok := ResolvePlain(u, "/p/123"); !ok || a == "" {
			b.Fatal("no URL")
		}
		if a, ok := ResolvePlain(u, "http://127.0.0.3:41234/p/5"); !ok || a == "" {
			b.Fatal("no URL")
		}
	}
}

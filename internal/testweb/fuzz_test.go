package testweb

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// FuzzRequestURI feeds arbitrary request URIs to every scenario host and
// to a generated host: no panic, a known status, and a generated host
// serves a page only at the URI that names it exactly.
func FuzzRequestURI(f *testing.F) {
	for _, seed := range []string{"/", "/p/1", "/p/01", "/d/0", "/p/-1", "/p/99999999999999999999",
		"/search?z=1&q=x", "/caf%C3%A9/menu", "/robots.txt", "/robots-hop/1", "//x", "/p/1?", "/%00", "*"} {
		f.Add(seed)
	}
	s, err := StartScenario(WithTimeout(0))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	g, err := StartGenerated(Generated{Hosts: 2, PagesPerHost: 50, PageBytes: 256, LinksPerPage: 3, DisallowFraction: 0.3, Seed: 1})
	if err != nil {
		f.Fatal(err)
	}
	defer g.Close()
	gh := g.Host("g0").content.(*genHost)
	f.Fuzz(func(t *testing.T, uri string) {
		if k, disallowed, ok := gh.parse(uri); ok {
			want := pageURI(k)
			if disallowed {
				want = "/d/" + strconv.Itoa(k)
			}
			if uri != want {
				t.Fatalf("parse(%q) = page %d (disallowed %v)", uri, k, disallowed)
			}
		}
		for _, h := range append(s.Hosts(), g.Hosts()...) {
			req := httptest.NewRequest(http.MethodGet, "http://x/", nil)
			req.RequestURI = uri
			w := httptest.NewRecorder()
			h.content.serve(s, w, req)
			switch w.Code {
			case 200, 301, 302, 307, 308, 403, 404, 429, 500, 503:
			default:
				t.Fatalf("%s %q: status %d", h.Name, uri, w.Code)
			}
			_ = h.content.page(uri)
			_ = h.content.isPage(uri)
		}
	})
}

// FuzzCanonical resolves arbitrary references the way the oracle resolves
// links and Locations: no panic, and the canonical form is a fixed point.
func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{"../about#team", "HTTP://127.0.0.2:80/about", "https://H:443/x?",
		"/caf%C3%A9/menu", "post-1", "//127.0.0.3:99/a", "mailto:x@y", "http://[::1]:8/a", "%zz", "/a b"} {
		f.Add("http://127.0.0.2:4000/blog/", seed)
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, ok := parseCanonical(nil, base)
		if !ok {
			return
		}
		u, ok := parseCanonical(mustParse(b), ref)
		if !ok {
			return
		}
		again, ok := parseCanonical(nil, u)
		if !ok || again != u {
			t.Fatalf("canonical(%q) = %q, then %q (ok %v)", ref, u, again, ok)
		}
	})
}

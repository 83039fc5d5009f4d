package frontier

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		"http://example.com/",
		"HTTPS://User:Pw@Example.COM:443/a/./b/../c?q=1&r=%7e+x#frag",
		"http://a/%2e%2E/%2f/%zz/%",
		"http://[2001:DB8::1]:8080/p?x",
		"http://Bücher.example/é?ü=1",
		"http://b%C3%BCcher.example/",
		"http://127.0.0.1:0080//a//..",
		"javascript:alert(1)",
		"mailto:a@example.com",
		"/relative?q",
		"http://a/b\\c d\t\n",
		"http:///x",
		"http://[::1",
		"http://x:99999/",
		"http://\xff/",
		"http://a/\x00\xff?%00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Canonicalize(in)
		auth, authErr := Authority(in)
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Canonicalize(%q): error %T is not a *URLError", in, err)
			}
			if out != "" {
				t.Fatalf("Canonicalize(%q) returned %q with an error", in, out)
			}
			return
		}
		if len(out) > MaxURLLength {
			t.Fatalf("Canonicalize(%q) = %d bytes", in, len(out))
		}
		again, err := Canonicalize(out)
		if err != nil || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
		if authErr != nil || !strings.HasPrefix(out, auth+"/") {
			t.Fatalf("Authority(%q) = %q, %v; canonical %q", in, auth, authErr, out)
		}
		if a2, err := Authority(out); err != nil || a2 != auth {
			t.Fatalf("Authority(%q) = %q, %v; want %q", out, a2, err, auth)
		}
		for i := 0; i < len(out); i++ {
			if c := out[i]; c <= ' ' || c >= 0x7f || c == '#' {
				t.Fatalf("canonical %q has byte %#x", out, c)
			}
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("net/url cannot parse canonical %q: %v", out, err)
		}
		if u.Scheme+"://"+u.Host != auth {
			t.Fatalf("net/url reads %q as %s://%s, Authority says %q", out, u.Scheme, u.Host, auth)
		}
	})
}

// FuzzCanonicalFastPath checks that the fast paths of Canonicalize and
// Authority answer what the full parse does wherever they answer.
func FuzzCanonicalFastPath(f *testing.F) {
	for _, s := range []string{
		"http://example.com/", "https://a.example:8443/p/q?x=1&y=2", "http://a.b/./x", "http://a.b/x/..",
		"http://a.b/.x/..y/...", "http://a.b/?", "http://a.b", "http://a.b?q", "http://a.b:80/", "https://a.b:443/",
		"https://a.b:80/", "http://a.b:0/", "http://a.b:00080/", "http://a.b:65536/", "http://a.b:/", "http://a..b/",
		"http://.a/", "http://a.b./", "http://A.b/", "http://a.b/%41", "http://a.b/#f", "http://a.b/x?q#f",
		"http://127.0.0.1:8080/p", "http://a.b/x y", "http://a.b/\tx", "http://a.b:1:2/", "http://a.b//x//",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if n := canonicalAuthorityEnd(in); n >= 0 {
			p, err := parseHead(in)
			if err != nil || string(p.appendAuthority(nil)) != in[:n] {
				t.Fatalf("authority of %q: fast path %q, parse %q (%v)", in, in[:n], p.appendAuthority(nil), err)
			}
		}
		if isCanonical(in) {
			if out, err := canonicalize(in); err != nil || out != in {
				t.Fatalf("%q taken as canonical; its canonical form is %q (%v)", in, out, err)
			}
		}
	})
}

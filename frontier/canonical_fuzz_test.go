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

package frontier

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", MaxURLLength-len("http://example.com/"))
	tests := []struct {
		in, want string
	}{
		// Scheme and host case.
		{"http://example.com/", "http://example.com/"},
		{"HTTP://EXAMPLE.COM/", "http://example.com/"},
		{"HtTpS://Example.Com/Path", "https://example.com/Path"},
		// Empty path.
		{"http://example.com", "http://example.com/"},
		{"http://example.com?q", "http://example.com/?q"},
		{"http://example.com#top", "http://example.com/"},
		// Ports.
		{"http://example.com:80/", "http://example.com/"},
		{"https://example.com:443/", "https://example.com/"},
		{"http://example.com:443/", "http://example.com:443/"},
		{"https://example.com:80/", "https://example.com:80/"},
		{"http://example.com:8080/", "http://example.com:8080/"},
		{"http://example.com:/", "http://example.com/"},
		{"http://example.com:0080/", "http://example.com/"},
		{"http://example.com:08080/", "http://example.com:8080/"},
		{"http://example.com:65535/", "http://example.com:65535/"},
		// Userinfo is dropped.
		{"http://user:secret@example.com/", "http://example.com/"},
		{"http://user@Example.com:81/x", "http://example.com:81/x"},
		{"http://a@b@example.com/", "http://example.com/"},
		{"http://@example.com/", "http://example.com/"},
		// Fragments.
		{"http://example.com/a#b", "http://example.com/a"},
		{"http://example.com/a?b#c?d", "http://example.com/a?b"},
		{"http://example.com/#", "http://example.com/"},
		{"http://example.com/a#b/../c", "http://example.com/a"},
		// Dot segments (RFC 3986 §5.4 examples, made absolute).
		{"http://a/b/c/./../../g", "http://a/g"},
		{"http://a/b/c/.", "http://a/b/c/"},
		{"http://a/b/c/./", "http://a/b/c/"},
		{"http://a/b/c/..", "http://a/b/"},
		{"http://a/b/c/../", "http://a/b/"},
		{"http://a/b/c/../g", "http://a/b/g"},
		{"http://a/../../../g", "http://a/g"},
		{"http://a/./g", "http://a/g"},
		{"http://a/g.", "http://a/g."},
		{"http://a/.g", "http://a/.g"},
		{"http://a/g..", "http://a/g.."},
		{"http://a/..g", "http://a/..g"},
		{"http://a/...", "http://a/..."},
		{"http://a/b/./g/.", "http://a/b/g/"},
		{"http://a/b//../g", "http://a/b/g"},
		{"http://a//b", "http://a//b"},
		{"http://a/.//b", "http://a//b"},
		{"http://a/..", "http://a/"},
		{"http://a/.", "http://a/"},
		{"http://a/b/..?q", "http://a/?q"},
		{"http://a/%2e%2E/b", "http://a/b"},
		{"http://a/x/.%2e/b", "http://a/b"},
		{"http://a/x/%2e./b", "http://a/b"},
		{"http://a/x/..%2F/b", "http://a/x/..%2F/b"},
		{"http://a/b?x=/../c", "http://a/b?x=/../c"},
		// Percent-encoding: unreserved decoded, others upper-cased.
		{"http://a/%7euser", "http://a/~user"},
		{"http://a/%7Euser", "http://a/~user"},
		{"http://a/%41%42%43", "http://a/ABC"},
		{"http://a/%61%2d%2E%5f%30", "http://a/a-._0"},
		{"http://a/a%2fb", "http://a/a%2Fb"},
		{"http://a/a%2Fb", "http://a/a%2Fb"},
		{"http://a/%3a%40%21", "http://a/%3A%40%21"},
		{"http://a/%e2%82%ac", "http://a/%E2%82%AC"},
		{"http://a/%25", "http://a/%25"},
		{"http://a/%", "http://a/%25"},
		{"http://a/%g1", "http://a/%25g1"},
		{"http://a/%1", "http://a/%251"},
		{"http://a/100%", "http://a/100%25"},
		{"http://a/%%41", "http://a/%25A"},
		// Characters RFC 3986 does not allow are encoded.
		{"http://a/hello world", "http://a/hello%20world"},
		{"http://a/ leading", "http://a/%20leading"},
		{"http://a/é", "http://a/%C3%A9"},
		{"http://a/日本", "http://a/%E6%97%A5%E6%9C%AC"},
		{"http://a/\xff\xfe", "http://a/%FF%FE"},
		{"http://a/a\\b", "http://a/a%5Cb"},
		{"http://a/<>\"{}|^`", "http://a/%3C%3E%22%7B%7D%7C%5E%60"},
		{"http://a/[x]", "http://a/%5Bx%5D"},
		{"http://a/\x01\x7f", "http://a/%01%7F"},
		{"http://a/!$&'()*+,;=:@", "http://a/!$&'()*+,;=:@"},
		// Query: order kept, "+" kept, escapes normalised, "?" and "/" kept.
		{"http://a/?b=2&a=1", "http://a/?b=2&a=1"},
		{"http://a/?z&y&x&z", "http://a/?z&y&x&z"},
		{"http://a/?q=a+b", "http://a/?q=a+b"},
		{"http://a/?q=a%2Bb", "http://a/?q=a%2Bb"},
		{"http://a/?q=a%20b", "http://a/?q=a%20b"},
		{"http://a/?q=a b", "http://a/?q=a%20b"},
		{"http://a/?q=%7e%41%2f", "http://a/?q=~A%2F"},
		{"http://a/?q=caf\xc3\xa9", "http://a/?q=caf%C3%A9"},
		{"http://a/?q=/path?x", "http://a/?q=/path?x"},
		{"http://a/?q=[]", "http://a/?q=%5B%5D"},
		{"http://a/?a=1&&b=", "http://a/?a=1&&b="},
		{"http://a/?", "http://a/"},
		{"http://a/?#x", "http://a/"},
		{"http://a/??", "http://a/??"},
		{"http://a/?q=%zz", "http://a/?q=%25zz"},
		// Whitespace around and inside.
		{"  http://example.com/a  ", "http://example.com/a"},
		{"\thttp://example.com/a\r\n", "http://example.com/a"},
		{"http://exa\nmple.com/a\tb", "http://example.com/ab"},
		{"\x00http://example.com/", "http://example.com/"},
		// IPv4 and IPv6 hosts.
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/"},
		{"http://[::1]/", "http://[::1]/"},
		{"http://[::1]:80/", "http://[::1]/"},
		{"http://[::1]:8080/", "http://[::1]:8080/"},
		{"http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"},
		{"http://[::ffff:192.0.2.1]/", "http://[::ffff:192.0.2.1]/"},
		// International and escaped host names.
		{"http://Bücher.example/", "http://xn--bcher-kva.example/"},
		{"http://BÜCHER.example/", "http://xn--bcher-kva.example/"},
		{"http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"},
		{"http://%65xample.com/", "http://example.com/"},
		{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
		{"http://my_host.example/", "http://my_host.example/"},
		{"http://example.com./", "http://example.com./"},
		// Long URLs.
		{long, long},
	}
	for _, tt := range tests {
		got, err := Canonicalize(tt.in)
		if err != nil {
			t.Errorf("Canonicalize(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Canonicalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Canonicalize(got)
		if err != nil || again != got {
			t.Errorf("Canonicalize(%q) = %q, %v; not idempotent", got, again, err)
		}
		auth, err := Authority(tt.in)
		if err != nil || !strings.HasPrefix(got, auth) || got[len(auth)] != '/' {
			t.Errorf("Authority(%q) = %q, %v; canonical %q", tt.in, auth, err, got)
		}
		if _, err := url.Parse(got); err != nil {
			t.Errorf("net/url cannot parse canonical %q: %v", got, err)
		}
	}
}

func TestCanonicalizeErrors(t *testing.T) {
	tests := []struct {
		in   string
		is   error // wrapped sentinel, or nil
		text string
	}{
		{"", ErrNotAbsolute, "empty"},
		{"   ", ErrNotAbsolute, "empty"},
		{"/path", ErrNotAbsolute, "no scheme"},
		{"page.html", ErrNotAbsolute, "no scheme"},
		{"//example.com/a", ErrNotAbsolute, "no scheme"},
		{"?q=1", ErrNotAbsolute, "no scheme"},
		{"#frag", ErrNotAbsolute, "no scheme"},
		{"1http://example.com/", ErrNotAbsolute, "no scheme"},
		{"javascript:alert(1)", ErrUnsupportedScheme, `"javascript"`},
		{"JavaScript:void(0)", ErrUnsupportedScheme, `"javascript"`},
		{"mailto:someone@example.com", ErrUnsupportedScheme, `"mailto"`},
		{"ftp://example.com/file", ErrUnsupportedScheme, `"ftp"`},
		{"data:text/plain,hi", ErrUnsupportedScheme, `"data"`},
		{"tel:+1-555", ErrUnsupportedScheme, `"tel"`},
		{"httpx://example.com/", ErrUnsupportedScheme, `"httpx"`},
		{"http:example.com", nil, "authority"},
		{"http:/example.com", nil, "authority"},
		{"http:\\\\example.com\\", nil, "authority"},
		{"http://", nil, "empty host"},
		{"http:///path", nil, "empty host"},
		{"http://:80/", nil, "empty host"},
		{"http://user@/", nil, "empty host"},
		{"http://example.com:abc/", nil, "not a number"},
		{"http://example.com:-1/", nil, "not a number"},
		{"http://example.com:65536/", nil, "out of range"},
		{"http://example.com:99999999999999999999/", nil, "out of range"},
		{"http://example.com:0/", nil, "port 0"},
		{"http://example.com:80:80/", nil, "invalid character"},
		{"http://::1/", nil, "invalid character"},
		{"http://[::1/", nil, "unclosed"},
		{"http://[::1]x/", nil, "after"},
		{"http://[1.2.3.4]/", nil, "IPv6"},
		{"http://[fe80::1%25eth0]/", nil, "zone"},
		{"http://[v1.fe]/", nil, "IPv6"},
		{"http://exa mple.com/", nil, "invalid character"},
		{"http://exa<mple.com/", nil, "invalid character"},
		{"http://example.com\\path", nil, "backslash"},
		{"http://example.com\\@evil.example/", nil, "backslash"},
		{"http://ex%zzample.com/", nil, "percent-encoding"},
		{"http://ex%2/", nil, "percent-encoding"},
		{"http://ex%2Fample.com/", nil, "invalid character"},
		{"http://a..b/", nil, "empty label"},
		{"http://.a/", nil, "empty label"},
		{"http://" + strings.Repeat("a", 300) + ".com/", nil, "host longer"},
		{"http://example.com/" + strings.Repeat("a", MaxURLLength), nil, "longer than"},
		{"http://example.com/" + strings.Repeat("a b", MaxURLLength/4), nil, "canonical form"},
	}
	for _, tt := range tests {
		got, err := Canonicalize(tt.in)
		if err == nil {
			t.Errorf("Canonicalize(%q) = %q, want an error", tt.in, got)
			continue
		}
		var ue *URLError
		if !errors.As(err, &ue) {
			t.Errorf("Canonicalize(%q): error %T is not a *URLError", tt.in, err)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("Canonicalize(%q): %v does not wrap %v", tt.in, err, tt.is)
		}
		if tt.is == nil && ue.Err != nil {
			t.Errorf("Canonicalize(%q): unexpected wrapped %v", tt.in, ue.Err)
		}
		if !strings.Contains(err.Error(), tt.text) {
			t.Errorf("Canonicalize(%q): %q does not mention %q", tt.in, err, tt.text)
		}
	}
}

func TestURLErrorHidesCredentials(t *testing.T) {
	for _, in := range []string{
		"http://alice:hunter2@example.com:99999/",
		"ftp://alice:hunter2@example.com/",
		"http://alice:hunter2@exa mple.com/",
		"http://alice:hunter2@/",
	} {
		_, err := Canonicalize(in)
		if err == nil {
			t.Fatalf("Canonicalize(%q) succeeded", in)
		}
		var ue *URLError
		errors.As(err, &ue)
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(ue.URL, "hunter2") {
			t.Errorf("error for %q shows the password: %v (URL %q)", in, err, ue.URL)
		}
	}
	got, _ := Canonicalize("http://alice:hunter2@example.com/")
	if strings.Contains(got, "hunter2") || strings.Contains(got, "alice") {
		t.Errorf("canonical form keeps credentials: %q", got)
	}
}

// TestBackslashAuthorityErrorNamesTheLinksHost checks that the error of a
// link with a backslash in its authority names the host a browser would
// go to, the link's own, not the one after a "@" further on, and still
// hides credentials before it.
func TestBackslashAuthorityErrorNamesTheLinksHost(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`http://example.com\@evil.example/`, `http://example.com\@evil.example/`},
		{`http://alice:hunter2@example.com\@evil.example/`, `http://example.com\@evil.example/`},
		{`https://example.com\x@evil.example`, `https://example.com\x@evil.example`},
	} {
		_, err := Canonicalize(tt.in)
		var ue *URLError
		if !errors.As(err, &ue) {
			t.Fatalf("Canonicalize(%q): %v, want a *URLError", tt.in, err)
		}
		if ue.URL != tt.want || !strings.Contains(err.Error(), strconv.Quote(tt.want)) {
			t.Errorf("Canonicalize(%q): error names %q (%v), want %q", tt.in, ue.URL, err, tt.want)
		}
	}
}

func TestURLErrorShortensLongURLs(t *testing.T) {
	_, err := Canonicalize("mailto:" + strings.Repeat("x", 5000))
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("error for a long URL is %d bytes: %v", len(err.Error()), err)
	}
}

func TestCanonicalizeReturnsCanonicalInputWithoutAllocating(t *testing.T) {
	in := "https://example.com/a/b?c=d&e=f+g"
	allocs := testing.AllocsPerRun(100, func() {
		if out, err := Canonicalize(in); err != nil || out != in {
			t.Fatalf("Canonicalize(%q) = %q, %v", in, out, err)
		}
	})
	if allocs != 0 {
		t.Errorf("Canonicalize of a canonical URL allocates %v times", allocs)
	}
}

func TestCanonicalizeURL(t *testing.T) {
	base, _ := url.Parse("http://Example.com/a/b/c")
	ref, _ := url.Parse("../d?x=1#f")
	got, err := CanonicalizeURL(base.ResolveReference(ref))
	if err != nil || got != "http://example.com/a/d?x=1" {
		t.Errorf("CanonicalizeURL = %q, %v", got, err)
	}
	if _, err := CanonicalizeURL(nil); err == nil {
		t.Error("CanonicalizeURL(nil) succeeded")
	}
}

func TestAuthority(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/a", "http://example.com"},
		{"https://example.com/a", "https://example.com"},
		{"https://example.com:8443/a", "https://example.com:8443"},
		{"HTTP://User:pw@EXAMPLE.com:80", "http://example.com"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://Bücher.example/", "http://xn--bcher-kva.example"},
		{"http://example.com?q", "http://example.com"},
		{"http://example.com#f", "http://example.com"},
	}
	for _, tt := range tests {
		got, err := Authority(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Authority(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"mailto:a@b", "/rel", "http://", "http://a:x/"} {
		if got, err := Authority(in); err == nil {
			t.Errorf("Authority(%q) = %q, want an error", in, got)
		}
	}
	if got := (&Request{URL: "HTTP://A.example:80/x"}).Authority(); got != "http://a.example" {
		t.Errorf("Request.Authority = %q", got)
	}
	if got := (&Request{URL: "mailto:x"}).Authority(); got != "" {
		t.Errorf("Request.Authority of an invalid URL = %q", got)
	}
}

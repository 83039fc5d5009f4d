package middleware

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// scopeSpec is the scope's domain rule written plainly: the URL's host
// by net/url, each allowed domain normalised on the spot.
func scopeSpec(domains []string, rawURL string) skiplog.Reason {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return skiplog.InvalidURL
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	isIP := net.ParseIP(host) != nil
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(d, "."), "."))
		if host == d || !isIP && net.ParseIP(d) == nil && strings.HasSuffix(host, "."+d) {
			return ""
		}
	}
	return skiplog.Offsite
}

func scopeReason(s *Scope, rawURL string) skiplog.Reason {
	var rec *skiplog.Record
	if err := s.Check(&frontier.Request{URL: rawURL}); errors.As(err, &rec) {
		return rec.Reason
	} else if err != nil {
		return "error: " + skiplog.Reason(err.Error())
	}
	return ""
}

var scopeDomains = []string{"example.com", ".Dot.Test.", "127.0.0.2", "::1", "com.a", ""}

var scopeURLs = []string{
	"https://example.com/", "https://www.example.com/x", "https://WWW.Example.COM/x", "https://example.com./",
	"https://a.dot.test/", "https://dot.test:8080/", "http://127.0.0.2:8080/", "http://1.127.0.0.2/",
	"http://[::1]/", "http://[::1]:8080/p", "http://[0:0::1]/", "http://x.com.a/", "http://com.a.b/",
	"http://a.com../", "http://example.com:80/", "https://user@example.com/", "https://evil.test/?example.com",
	"ftp://example.com/", "::not a url", "http:///x", "http://%zz/", "https://example.com/%zz", "http://a.b/ x",
}

func TestScopeDomainsAgreeWithTheRule(t *testing.T) {
	s := &Scope{Domains: scopeDomains}
	for _, u := range scopeURLs {
		if got, want := scopeReason(s, u), scopeSpec(scopeDomains, u); got != want {
			t.Errorf("%q: %q, want %q", u, got, want)
		}
	}
}

// FuzzScopeDomains checks the domain set and the canonical-URL host
// against the rule written plainly.
func FuzzScopeDomains(f *testing.F) {
	for _, u := range scopeURLs {
		f.Add(u, "example.com,127.0.0.2")
	}
	f.Fuzz(func(t *testing.T, rawURL, domains string) {
		ds := strings.Split(domains, ",")
		s := &Scope{Domains: ds}
		if got, want := scopeReason(s, rawURL), scopeSpec(ds, rawURL); got != want {
			t.Errorf("%q in %q: %q, want %q", rawURL, ds, got, want)
		}
	})
}

// TestScopeCheckAllocations: checking an in-scope canonical URL against
// many domains allocates nothing.
func TestScopeCheckAllocations(t *testing.T) {
	var domains []string
	for i := range 50 {
		domains = append(domains, fmt.Sprintf("h%d.test", i))
	}
	s := &Scope{Domains: domains}
	for _, u := range []string{"http://h31.test:8080/p/12?x=1", "https://h7.test/"} {
		req := &frontier.Request{URL: u}
		if err := s.Check(req); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(50, func() { _ = s.Check(req) }); n > 0 {
			t.Errorf("Check of %s: %.0f allocations", u, n)
		}
	}
}

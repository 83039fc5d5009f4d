package middleware

import (
	"errors"
	"fmt"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// BenchmarkScopeCheck checks a page URL against a crawl's allowed domains
// as admission and the chain's scope stage do for every URL: 50 allowed
// addresses (the throughput benchmark's site) and, as a second case, 50
// names with their subdomains.
func BenchmarkScopeCheck(b *testing.B) {
	for _, kind := range []string{"addresses", "names"} {
		b.Run(kind, func(b *testing.B) {
			var domains []string
			for i := range 50 {
				if kind == "addresses" {
					domains = append(domains, fmt.Sprintf("127.0.1.%d", i+1))
				} else {
					domains = append(domains, fmt.Sprintf("host%d.example", i+1))
				}
			}
			s := &Scope{Domains: domains}
			host := domains[37]
			if kind == "names" {
				host = "www." + host
			}
			req := &frontier.Request{URL: "http://" + host + ":8080/p/123"}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Check(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestScopeDomainsReplaced: a Scope whose Domains are replaced after it
// has checked URLs checks the next ones against the new domains.
func TestScopeDomainsReplaced(t *testing.T) {
	s := &Scope{Domains: []string{"a.example"}}
	offsite := func(u string) bool {
		var rec *skiplog.Record
		return errors.As(s.Check(&frontier.Request{URL: u}), &rec) && rec.Reason == skiplog.Offsite
	}
	if offsite("http://www.a.example/") || !offsite("http://b.example/") {
		t.Fatal("first domains not applied")
	}
	s.Domains = []string{"B.example."}
	if !offsite("http://www.a.example/") || offsite("http://www.b.example/") || offsite("http://B.EXAMPLE/") {
		t.Error("replaced domains not applied")
	}
	s.Domains = nil
	if offsite("http://c.example/") {
		t.Error("no domains: any host is in scope")
	}
}

package middleware

import (
	"net"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/heedcrawl/heed/frontier"
)

// Scope.Check runs for every discovered link and every request, so the
// allowed domains are normalised once into a set (domainSet) rather than
// for each URL, and the host of a canonical URL (every request the
// frontier hands out, most links) is read from its authority rather than
// by net/url.

// domainSet is Scope.Domains normalised as domainAllowed compares them:
// lower case, without a leading or trailing dot. A name (not an IP
// address) also admits its subdomains.
type domainSet struct {
	src   []string        // the Domains it was built from
	names map[string]bool // normalised domain → whether it is a name
}

func newDomainSet(domains []string) *domainSet {
	ds := &domainSet{src: domains, names: make(map[string]bool, len(domains))}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(d, "."), "."))
		ds.names[d] = ds.names[d] || net.ParseIP(d) == nil
	}
	return ds
}

// sameSlice reports whether a and b are the same slice (not only equal).
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// domainCache holds the set built from the Domains a Scope last checked
// against; assigning a new Domains slice rebuilds it.
type domainCache struct {
	p atomic.Pointer[domainSet]
}

func (c *domainCache) get(domains []string) *domainSet {
	if ds := c.p.Load(); ds != nil && sameSlice(ds.src, domains) {
		return ds
	}
	ds := newDomainSet(domains)
	c.p.Store(ds)
	return ds
}

// allowed reports whether host equals an allowed domain or, unless it is
// an IP address, is a subdomain of an allowed name.
func (ds *domainSet) allowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if _, ok := ds.names[host]; ok {
		return true
	}
	for i := 0; i < len(host); i++ {
		if host[i] != '.' {
			continue
		}
		if ds.names[host[i+1:]] {
			// Subdomains of a name are in scope; an address has none.
			return net.ParseIP(host) == nil
		}
	}
	return false
}

// hostname returns the host of rawURL as url.URL.Hostname does, and false
// when rawURL does not parse or has no host. A canonical URL is read
// without net/url: its authority is its prefix.
func hostname(rawURL string) (string, bool) {
	if c, err := frontier.Canonicalize(rawURL); err == nil && c == rawURL {
		auth, err := frontier.Authority(rawURL)
		if err == nil {
			return hostOfAuthority(auth[strings.Index(auth, "://")+3:]), true
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", false
	}
	return u.Hostname(), true
}

// hostOfAuthority strips the port and the brackets of an IPv6 literal
// from a canonical host[:port], as url.URL.Hostname does.
func hostOfAuthority(hostPort string) string {
	host := hostPort
	if strings.HasPrefix(host, "[") {
		if end := strings.IndexByte(host, ']'); end >= 0 {
			return host[1:end]
		}
		return host
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return host
}

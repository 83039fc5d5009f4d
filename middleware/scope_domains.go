package middleware

import (
	"net"
	"strings"
)

// domainSet is Scope.Domains made ready for matching: the names as
// matched (lower case, no leading or trailing dot), and the suffixes that
// admit subdomains (for names, not addresses). Scope builds it once for
// the Domains it is given, not for every URL it checks.
type domainSet struct {
	from     []string
	exact    map[string]struct{}
	suffixes []string
}

func newDomainSet(domains []string) *domainSet {
	ds := &domainSet{from: domains, exact: make(map[string]struct{}, len(domains))}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(d, "."), "."))
		ds.exact[d] = struct{}{}
		if net.ParseIP(d) == nil {
			ds.suffixes = append(ds.suffixes, "."+d)
		}
	}
	return ds
}

// builtFrom reports whether ds was built from this very slice.
func (ds *domainSet) builtFrom(domains []string) bool {
	return len(ds.from) == len(domains) && (len(domains) == 0 || &ds.from[0] == &domains[0])
}

// allows reports whether host is one of the domains or, for a name, a
// subdomain of one.
func (ds *domainSet) allows(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if _, ok := ds.exact[host]; ok {
		return true
	}
	if len(ds.suffixes) == 0 || net.ParseIP(host) != nil {
		// An address has no subdomains.
		return false
	}
	for _, s := range ds.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

package middleware

// InDomains reports whether host is one of domains or, for a name, a
// subdomain of one: the rule of Scope.Domains (case-insensitive, a
// leading or trailing dot ignored, an IP address only as itself), for
// the other places a crawl limits links to domains (link rules).
func InDomains(host string, domains []string) bool {
	return len(domains) > 0 && newDomainSet(domains).allows(host)
}

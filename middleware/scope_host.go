package middleware

import (
	"net/url"
	"strings"

	"github.com/heedcrawl/heed/frontier"
)

// hostname returns the host of rawURL as url.URL.Hostname does, and false
// when rawURL does not parse or has no host. Scope.Check asks it of every
// discovered link and every request; most are canonical (every request
// the frontier hands out, most links), and a canonical URL is read
// without net/url: its authority is its prefix (frontier.Authority).
func hostname(rawURL string) (string, bool) {
	if c, err := frontier.Canonicalize(rawURL); err == nil && c == rawURL {
		if auth, err := frontier.Authority(rawURL); err == nil {
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
	if strings.HasPrefix(hostPort, "[") {
		if end := strings.IndexByte(hostPort, ']'); end >= 0 {
			return hostPort[1:end]
		}
		return hostPort
	}
	if i := strings.LastIndexByte(hostPort, ':'); i >= 0 {
		return hostPort[:i]
	}
	return hostPort
}

package frontier

import (
	"fmt"
	"net/url"
	"strings"
)

// Authority returns the authority of an absolute http or https URL in
// canonical form: lower-case scheme and host, and the port only when it is
// not the scheme's default ("https://example.com", "http://example.com:8080").
// robots.txt, pacing and caches are all kept per authority.
func Authority(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	return authorityOf(u)
}

func authorityOf(u *url.URL) (string, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("frontier: %q is not an http or https URL", u.String())
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("frontier: %q has no host", u.String())
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, nil
	}
	return scheme + "://" + host, nil
}

package crawler

import (
	"net/http"

	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
)

// The downloader is package download; the engine makes one per run from
// its options (downloadConfig). The names below are the downloader's
// identity rules and transport as crawler's options document them.

// DefaultTransport returns a new transport as heed's downloader makes one
// when WithTransport is not given (download.DefaultTransport): the proxy
// of the environment, 10 s connect and TLS handshake timeouts, pools
// sized for many hosts. Change it and pass it to WithTransport.
func DefaultTransport() *http.Transport { return download.DefaultTransport() }

// DefaultUserAgent returns the User-Agent heed sends for a product token
// (download.DefaultUserAgent).
func DefaultUserAgent(agent string) string { return download.DefaultUserAgent(agent) }

// UserAgentHasToken reports whether the User-Agent header value contains
// the product token as a whole word, case-insensitively
// (download.UserAgentHasToken).
func UserAgentHasToken(ua, token string) bool { return download.UserAgentHasToken(ua, token) }

// CheckUserAgent reports why ua cannot be the User-Agent of a crawler
// whose product token is agent (download.CheckUserAgent): New refuses
// such a User-Agent with this error.
func CheckUserAgent(ua, agent string) error { return download.CheckUserAgent(ua, agent) }

// downloadConfig is the downloader's configuration of the options; stray
// receives the requests callbacks asked colly itself to make.
func (c *config) downloadConfig(stray func(parent *frontier.Request, rawURL string)) download.Config {
	return download.Config{
		UserAgent: c.userAgent,
		Timeout:   c.timeout,
		MaxBody:   c.maxBody,
		Transport: c.transport,
		NoCookies: c.noCookies,
		Cookies:   c.cookies,
		Stray:     stray,
	}
}

package crawler

import (
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
)

// The downloader is package download (its identity rules, CheckUserAgent
// and CheckHeader, are those New refuses options by, and its
// DefaultTransport is the one WithTransport replaces); the engine makes
// one per run from its options.

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

package crawler

import (
	"fmt"
	"net/http"

	"github.com/heedcrawl/heed/download"
)

// WithHeaders adds headers to every request heed makes: pages,
// robots.txt and sitemaps alike (a site that wants a token on its
// pages wants it on its robots.txt too). A header a request sets itself
// (WithHeader on a Request) wins over the same header here. New refuses
// a User-Agent (the header is WithUserAgent's, and must name the product
// token robots.txt groups are matched against: a second way to set it
// would let the two disagree in silence), a Host (net/http sends the
// URL's host, whatever the header says), and any name or value that is
// not a valid HTTP field (CR, LF and other control characters included).
// The transport that adds them is middleware.Headers.
func WithHeaders(h http.Header) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = http.Header{}
		}
		for k, vs := range h {
			for _, v := range vs {
				c.headers.Add(k, v)
			}
		}
	}
}

// checkHeaders refuses the headers WithHeaders cannot send.
func (c *config) checkHeaders() error {
	for k, vs := range c.headers {
		for _, v := range vs {
			if err := download.CheckHeader(k, v); err != nil {
				return fmt.Errorf("crawler: %w", err)
			}
		}
	}
	return nil
}

package crawler

import (
	"fmt"
	"net/http"
	"net/textproto"

	"golang.org/x/net/http/httpguts"
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

// CheckHeader reports why a header cannot be sent with every request
// (see WithHeaders), or nil.
func CheckHeader(name, value string) error {
	switch {
	case !httpguts.ValidHeaderFieldName(name):
		return fmt.Errorf("header name %q is not a valid HTTP field name", name)
	case !httpguts.ValidHeaderFieldValue(value):
		return fmt.Errorf("header %s: value %q holds a control character (CR, LF ...)", name, value)
	}
	switch textproto.CanonicalMIMEHeaderKey(name) {
	case "User-Agent":
		return fmt.Errorf("header User-Agent: set it with the user agent option (--user-agent), which must name the product token robots.txt is matched against")
	case "Host":
		return fmt.Errorf("header Host: the request's URL decides the host sent")
	case callHeader:
		return fmt.Errorf("header %s is heed's own", callHeader)
	}
	return nil
}

// checkHeaders refuses the headers WithHeaders cannot send.
func (c *config) checkHeaders() error {
	for k, vs := range c.headers {
		for _, v := range vs {
			if err := CheckHeader(k, v); err != nil {
				return fmt.Errorf("crawler: %w", err)
			}
		}
	}
	return nil
}

// headerTransport adds the crawl's headers to each request that does
// not set them itself.
type headerTransport struct {
	next    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var out *http.Request
	for k, vs := range t.headers {
		if _, set := req.Header[k]; set {
			continue
		}
		if out == nil {
			out = req.Clone(req.Context()) // a RoundTripper must not modify its request
			if out.Header == nil {
				out.Header = http.Header{}
			}
		}
		out.Header[k] = append([]string(nil), vs...)
	}
	if out == nil {
		out = req
	}
	return t.next.RoundTrip(out)
}

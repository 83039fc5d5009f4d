package middleware

import (
	"fmt"
	"net/http"
	"net/textproto"

	"golang.org/x/net/http/httpguts"
)

// CheckHeader reports why a header cannot be sent with every request of
// a crawl, or nil: a name or value that is not a valid HTTP field (CR, LF
// and other control characters included), a User-Agent (the crawler's
// own, which must name the product token robots.txt groups are matched
// against), a Host (net/http sends the URL's host, whatever the header
// says), or one of reserved (the caller's own headers).
func CheckHeader(name, value string, reserved ...string) error {
	switch {
	case !httpguts.ValidHeaderFieldName(name):
		return fmt.Errorf("header name %q is not a valid HTTP field name", name)
	case !httpguts.ValidHeaderFieldValue(value):
		return fmt.Errorf("header %s: value %q holds a control character (CR, LF ...)", name, value)
	}
	switch key := textproto.CanonicalMIMEHeaderKey(name); key {
	case "User-Agent":
		return fmt.Errorf("header User-Agent: set it with the user agent option (--user-agent), which must name the product token robots.txt is matched against")
	case "Host":
		return fmt.Errorf("header Host: the request's URL decides the host sent")
	default:
		for _, r := range reserved {
			if key == textproto.CanonicalMIMEHeaderKey(r) {
				return fmt.Errorf("header %s is heed's own", r)
			}
		}
	}
	return nil
}

// Headers is a transport that adds headers to each request that does not
// set them itself (a header the request sets wins), without modifying the
// request it is given.
type Headers struct {
	Next    http.RoundTripper
	Headers http.Header
}

// RoundTrip sends req, with the headers it lacks, through Next.
func (t *Headers) RoundTrip(req *http.Request) (*http.Response, error) {
	var out *http.Request
	for k, vs := range t.Headers {
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
	return t.Next.RoundTrip(out)
}

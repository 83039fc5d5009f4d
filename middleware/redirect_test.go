package middleware_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// TestRedirectHopMethod checks what a hop keeps of the request it
// redirects: a 307 or 308 asks for the same request again, any other
// redirect of a POST is a GET without a body and without the headers that
// describe one.
func TestRedirectHopMethod(t *testing.T) {
	post := func() *frontier.Request {
		return &frontier.Request{
			URL: "http://a.test/form", Method: http.MethodPost, Body: []byte("q=1"), Depth: 2, Callback: "result",
			Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Token": {"t"}},
		}
	}
	for _, tc := range []struct {
		status   int
		method   string
		body     string
		withType bool
	}{
		{http.StatusMovedPermanently, "", "", false},
		{http.StatusFound, "", "", false},
		{http.StatusSeeOther, "", "", false},
		{http.StatusTemporaryRedirect, http.MethodPost, "q=1", true},
		{http.StatusPermanentRedirect, http.MethodPost, "q=1", true},
	} {
		req := post()
		next, rec := middleware.RedirectHop(req, tc.status, "/done", 10)
		if rec != nil {
			t.Fatalf("%d: %+v", tc.status, rec)
		}
		if next.URL != "http://a.test/done" || next.Method != tc.method || string(next.Body) != tc.body ||
			next.Depth != 2 || next.Callback != "result" || next.Referrer != req.URL {
			t.Errorf("%d: hop %+v", tc.status, next)
		}
		if got := next.Header.Get("X-Token"); got != "t" {
			t.Errorf("%d: X-Token %q, want the request's header kept", tc.status, got)
		}
		if has := next.Header.Get("Content-Type") != ""; has != tc.withType {
			t.Errorf("%d: Content-Type kept %v, want %v", tc.status, has, tc.withType)
		}
		if got := req.Header.Get("Content-Type"); got == "" {
			t.Errorf("%d: the redirected request's own headers were changed", tc.status)
		}
	}
}

// TestRedirectHopEnds checks the records that end a chain.
func TestRedirectHopEnds(t *testing.T) {
	req := &frontier.Request{URL: "http://a.test/b", Redirects: []string{"http://a.test/a"}}
	for _, tc := range []struct {
		location string
		max      int
		reason   skiplog.Reason
		detail   string
	}{
		{"/a", 10, skiplog.RedirectLoop, "http://a.test/a -> http://a.test/b -> http://a.test/a"},
		{"/c", 1, skiplog.RedirectLimit, "more than 1 redirects from http://a.test/a"},
		{"javascript:void(0)", 10, skiplog.InvalidURL, ""},
		{"", 10, skiplog.InvalidURL, ""},
	} {
		next, rec := middleware.RedirectHop(req, http.StatusFound, tc.location, tc.max)
		if next != nil || rec == nil || rec.Reason != tc.reason || !strings.Contains(rec.Detail, tc.detail) || rec.Referrer != req.URL {
			t.Errorf("%q: hop %+v, record %+v; want %s %q", tc.location, next, rec, tc.reason, tc.detail)
		}
	}
}

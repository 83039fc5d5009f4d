package middleware_test

import (
	"net/http"
	"testing"

	"github.com/heedcrawl/heed/middleware"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Headers adds the headers a request lacks, lets the request's own win,
// and leaves the request it was given unchanged.
func TestHeadersAddWhatTheRequestLacks(t *testing.T) {
	var got http.Header
	h := &middleware.Headers{
		Next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			got = r.Header.Clone()
			return &http.Response{StatusCode: 200}, nil
		}),
		Headers: http.Header{"Authorization": {"Bearer t"}, "X-A": {"crawl"}},
	}
	req, _ := http.NewRequest("GET", "http://127.0.0.1/", nil)
	req.Header.Set("X-A", "request")
	if _, err := h.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer t" || got.Get("X-A") != "request" {
		t.Fatalf("sent %v", got)
	}
	if req.Header.Get("Authorization") != "" {
		t.Fatalf("the caller's request was modified: %v", req.Header)
	}
}

// CheckHeader refuses the identity headers, the reserved names, and what
// is not a valid HTTP field; it lets an ordinary header through.
func TestCheckHeader(t *testing.T) {
	for _, c := range [][2]string{{"User-Agent", "OtherBot"}, {"user-agent", "HeedBot"}, {"Host", "example.com"}, {"X-A", "1\r\nX-B: 2"}, {"X A", "1"}, {"x-heed-call", "1"}} {
		if err := middleware.CheckHeader(c[0], c[1], "X-Heed-Call"); err == nil {
			t.Errorf("%q: %q accepted", c[0], c[1])
		}
	}
	if err := middleware.CheckHeader("Authorization", "Bearer t", "X-Heed-Call"); err != nil {
		t.Errorf("an ordinary header refused: %v", err)
	}
}

package middleware

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// trackedBody is a stream that remembers being closed.
type trackedBody struct {
	io.Reader
	closed int
}

func (b *trackedBody) Close() error { b.closed++; return nil }

func streamer(status int, body *trackedBody) Fetcher {
	return FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		return &Response{Request: req, Status: status, Header: http.Header{}, Stream: body}, nil
	})
}

func TestPolitenessHoldsTheSlotUntilTheStreamIsClosed(t *testing.T) {
	p := &fakePacer{ok: true}
	body := &trackedBody{Reader: strings.NewReader("<urlset/>")}
	resp, err := Politeness(p)(streamer(200, body)).Fetch(context.Background(), &frontier.Request{URL: "http://a.test/sitemap.xml", Kind: frontier.KindSitemap})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.released) != 0 {
		t.Fatalf("released before the body was read: %+v", p.released)
	}
	if b, _ := io.ReadAll(resp.Stream); string(b) != "<urlset/>" {
		t.Fatalf("stream read %q", b)
	}
	resp.Stream.Close()
	resp.Stream.Close()
	if len(p.released) != 1 || p.released[0].Status != 200 {
		t.Fatalf("released %+v, want once with status 200", p.released)
	}
	if body.closed != 2 {
		t.Errorf("underlying body closed %d times, want every Close passed on", body.closed)
	}
}

func TestRetryClosesADroppedStream(t *testing.T) {
	body := &trackedBody{Reader: strings.NewReader("")}
	r := &Retry{MaxRetries: 1, Statuses: []int{503}, Base: time.Second}
	_, err := r.Stage()(streamer(503, body)).Fetch(context.Background(), &frontier.Request{URL: "http://a.test/s.xml", Kind: frontier.KindSitemap})
	if _, ok := err.(*DeferError); !ok {
		t.Fatalf("err = %v, want a deferral", err)
	}
	if body.closed != 1 {
		t.Errorf("dropped stream closed %d times, want 1", body.closed)
	}
}

func TestHTTPFetcherStreamsSitemaps(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 100))
	}))
	defer srv.Close()
	f := &HTTPFetcher{Client: srv.Client(), MaxBody: 10, StreamSitemaps: true}
	ctx := context.Background()

	resp, err := f.Fetch(ctx, &frontier.Request{URL: srv.URL + "/sitemap.xml", Kind: frontier.KindSitemap})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Stream == nil || resp.Body != nil {
		t.Fatalf("sitemap: stream %v body %q, want a stream", resp.Stream, resp.Body)
	}
	b, _ := io.ReadAll(resp.Stream)
	resp.Stream.Close()
	if len(b) != 100 {
		t.Errorf("streamed %d bytes, want all 100 (the parser bounds a sitemap, not MaxBody)", len(b))
	}

	resp, err = f.Fetch(ctx, &frontier.Request{URL: srv.URL + "/page"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Stream != nil || len(resp.Body) != 10 || !resp.Truncated {
		t.Errorf("page: stream %v, %d bytes, truncated %v; want a capped body", resp.Stream, len(resp.Body), resp.Truncated)
	}
}

func TestScopePatternsAndDepthConcernPages(t *testing.T) {
	s := &Scope{
		Domains:  []string{"example.com"},
		Include:  []*regexp.Regexp{regexp.MustCompile(`/blog/`)},
		MaxDepth: 1,
	}
	tests := []struct {
		req  frontier.Request
		want skiplog.Reason
	}{
		{frontier.Request{URL: "https://example.com/sitemap.xml", Kind: frontier.KindSitemap, Depth: 3}, ""},
		{frontier.Request{URL: "https://other.test/sitemap.xml", Kind: frontier.KindSitemap}, skiplog.Offsite},
		{frontier.Request{URL: "https://example.com/sitemap.xml"}, skiplog.Filter},
		{frontier.Request{URL: "https://example.com/blog/a", Depth: 2}, skiplog.Depth},
	}
	for _, tt := range tests {
		var got skiplog.Reason
		if err := s.Check(&tt.req); err != nil {
			got = err.(*skiplog.Record).Reason
		}
		if got != tt.want {
			t.Errorf("%s (kind %d, depth %d): %q, want %q", tt.req.URL, tt.req.Kind, tt.req.Depth, got, tt.want)
		}
	}
}

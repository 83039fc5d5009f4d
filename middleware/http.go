package middleware

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// HTTPFetcher is a plain net/http downloader: it does not follow
// redirects and caps bodies at MaxBody bytes. heed's crawler downloads with
// colly; HTTPFetcher serves the tools that need only robots.txt and
// sitemaps (heed robots check, heed inventory) and tests.
type HTTPFetcher struct {
	Client    *http.Client
	UserAgent string
	// MaxBody caps a body; 0 means 10 MiB.
	MaxBody int64
	// StreamSitemaps returns the body of KindSitemap requests as
	// Response.Stream, uncapped (the sitemap parser bounds what it reads),
	// instead of reading it into Body. The Client's Timeout still covers
	// reading it.
	StreamSitemaps bool
}

// Fetch downloads req.
func (h *HTTPFetcher) Fetch(ctx context.Context, req *frontier.Request) (*Response, error) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequestWithContext(ctx, method, req.URL, nil)
	if err != nil {
		return nil, err
	}
	if h.UserAgent != "" {
		hr.Header.Set("User-Agent", h.UserAgent)
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := time.Now()
	resp, err := c.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", req.URL, err)
	}
	if h.StreamSitemaps && req.Kind == frontier.KindSitemap {
		return &Response{Request: req, URL: req.URL, Status: resp.StatusCode, Header: resp.Header, Stream: resp.Body, Elapsed: time.Since(start)}, nil
	}
	defer resp.Body.Close()
	limit := h.MaxBody
	if limit <= 0 {
		limit = 10 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: reading body: %w", req.URL, err)
	}
	truncated := int64(len(body)) > limit
	if truncated {
		body = body[:limit]
	}
	return &Response{Request: req, URL: req.URL, Status: resp.StatusCode, Header: resp.Header, Body: body, Truncated: truncated, Elapsed: time.Since(start)}, nil
}

package discovery

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// Download fetches a sitemap and returns the response with its body as
// Response.Stream, for Reader.Handle to read as it arrives: a crawl's
// downloader calls it for requests of Kind KindSitemap, since a page
// downloader holds the whole body. The sitemap parser detects gzip by its
// magic bytes and stops at its own limits (50 MiB uncompressed by
// default), so no page body cap or transparent decompression applies.
// Redirects are returned, not followed. The timeout covers the request and
// the reading of the body; closing the stream ends the request.
func Download(ctx context.Context, transport http.RoundTripper, userAgent string, timeout time.Duration, req *frontier.Request) (*middleware.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("download %s: %w", req.URL, err)
	}
	hr.Header.Set("User-Agent", userAgent)
	client := &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	start := time.Now()
	resp, err := client.Do(hr)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("download %s: %w", req.URL, err)
	}
	return &middleware.Response{
		Request: req,
		URL:     req.URL,
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Stream:  &cancelOnClose{ReadCloser: resp.Body, cancel: cancel},
		Elapsed: time.Since(start),
	}, nil
}

// cancelOnClose ends a streamed request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	once   sync.Once
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.once.Do(c.cancel)
	return err
}

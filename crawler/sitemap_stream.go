package crawler

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

// stream downloads a sitemap without colly, which would hold the whole
// body: the response comes back with its body as Response.Stream, read by
// the sitemap parser as it arrives. The parser detects gzip by its magic
// bytes and stops at its own limits (50 MiB uncompressed by default), so
// neither the page body cap nor colly's decompression applies. The
// request's timeout covers reading the body; closing the stream ends the
// request.
func (d *downloader) stream(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("download %s: %w", req.URL, err)
	}
	hr.Header.Set("User-Agent", d.userAgent)
	client := &http.Client{
		Transport:     d.transport,
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

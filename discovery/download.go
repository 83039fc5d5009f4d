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
// Redirects are returned, not followed. Closing the stream ends the
// request.
//
// The timeout covers the time spent waiting on the network: the request,
// and the reading of the body, but not the time Reader.Handle spends
// queueing what it read (a durable frontier's synced writes, a shared
// frontier's round trips), during which the clock is stopped. A sitemap
// is never cut short because the frontier is slower than the network.
func Download(ctx context.Context, transport http.RoundTripper, userAgent string, timeout time.Duration, req *frontier.Request) (*middleware.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	clock := newPausableDeadline(timeout, func() {
		cancel(fmt.Errorf("timeout of %s: %w", timeout, context.DeadlineExceeded))
	})
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	if err != nil {
		clock.stop()
		cancel(nil)
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
		clock.stop()
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		cancel(nil)
		return nil, fmt.Errorf("download %s: %w", req.URL, err)
	}
	return &middleware.Response{
		Request: req,
		URL:     req.URL,
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Stream:  &stream{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, clock: clock},
		Elapsed: time.Since(start),
	}, nil
}

// pauser is a body whose deadline can be stopped while its reader does
// something other than waiting on the network (Download's streams).
type pauser interface {
	pause()
	resume()
}

// cutter is a body whose reading can be ended from outside, a Read
// blocked on the network included, with a cause its Read then returns
// (Download's streams: the crawl's stop cuts them).
type cutter interface {
	cut(cause error)
}

// findPauser finds the pauser in a chain of wrapped streams, or nil.
func findPauser(rc io.ReadCloser) pauser { return unwrapStream[pauser](rc) }

// findCutter finds the cutter in a chain of wrapped streams, or nil.
func findCutter(rc io.ReadCloser) cutter { return unwrapStream[cutter](rc) }

// unwrapStream finds the T in a chain of wrapped streams (see
// middleware.Response.Stream), or T's zero value.
func unwrapStream[T any](rc io.ReadCloser) T {
	var zero T
	for i := 0; rc != nil && i < 16; i++ {
		if t, ok := rc.(T); ok {
			return t
		}
		u, ok := rc.(interface{ Unwrap() io.ReadCloser })
		if !ok {
			return zero
		}
		rc = u.Unwrap()
	}
	return zero
}

// stream is a sitemap body being read: Close ends its request, and its
// deadline's clock can be stopped.
type stream struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	clock  *pausableDeadline
	once   sync.Once
}

// Read reads the body; a read cut by the deadline says so, rather than
// "context canceled".
func (s *stream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		if cause := context.Cause(s.ctx); cause != nil {
			err = cause
		}
	}
	return n, err
}

func (s *stream) pause()  { s.clock.pause() }
func (s *stream) resume() { s.clock.resume() }

// cut ends the request with cause; the deadline no longer matters.
func (s *stream) cut(cause error) {
	s.clock.stop()
	s.cancel(cause)
}

func (s *stream) Close() error {
	err := s.ReadCloser.Close()
	s.once.Do(func() {
		s.clock.stop()
		s.cancel(nil)
	})
	return err
}

// pausableDeadline calls expire once the time it ran, pauses excluded,
// reaches its budget.
type pausableDeadline struct {
	mu      sync.Mutex
	left    time.Duration // budget left when the clock last started
	started time.Time     // zero while paused
	timer   *time.Timer
	done    bool // expired or stopped
	expire  func()
}

func newPausableDeadline(budget time.Duration, expire func()) *pausableDeadline {
	d := &pausableDeadline{left: budget, started: time.Now(), expire: expire}
	d.timer = time.AfterFunc(budget, d.fire)
	return d
}

func (d *pausableDeadline) fire() {
	d.mu.Lock()
	if d.done || d.started.IsZero() {
		d.mu.Unlock()
		return
	}
	d.done = true
	d.mu.Unlock()
	d.expire()
}

// pause stops the clock; nothing once it has expired.
func (d *pausableDeadline) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done || d.started.IsZero() {
		return
	}
	if !d.timer.Stop() {
		return // firing now: the deadline has passed
	}
	d.left -= time.Since(d.started)
	d.started = time.Time{}
}

// resume starts the clock again with the budget left.
func (d *pausableDeadline) resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done || !d.started.IsZero() {
		return
	}
	d.started = time.Now()
	d.timer.Reset(max(d.left, 0))
}

func (d *pausableDeadline) stop() {
	d.mu.Lock()
	d.done = true
	d.mu.Unlock()
	d.timer.Stop()
}

package discovery

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// fetch sends a sitemap request down the chain on a context Stop
// cancels, so that the stop cuts a sitemap still waiting for its turn or
// for its response headers, which may take as long as the request
// timeout. The response's stream keeps that context until it is closed.
func (m *Reader) fetch(ctx context.Context, next middleware.Fetcher, req *frontier.Request) (*middleware.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	end := m.startReading(func() { cancel(errStopped) })
	resp, err := next.Fetch(ctx, req)
	end()
	if err == nil && resp != nil && resp.Stream != nil {
		resp.Stream = &held{ReadCloser: resp.Stream, release: func() { cancel(nil) }}
		return resp, nil
	}
	stopped := errors.Is(context.Cause(ctx), errStopped)
	cancel(nil)
	if err == nil {
		return resp, nil
	}
	var de *middleware.DeferError
	var rec *skiplog.Record
	switch {
	case errors.As(err, &de):
		// Requeued by the engine (a pace, a retry): not yet failed.
	case errors.As(err, &rec) && rec.Reason != skiplog.FetchError:
		// Excluded below (the budget): the record says why, nothing was
		// fetched nor failed.
	case stopped:
		cut := &Interrupted{Request: req}
		m.result(Result{URL: req.URL, Err: cut.Error(), Interrupted: true}, false)
		return nil, cut
	default:
		// No response: the tries spent (the retry stage's fetch-error
		// record, which the engine writes) or an error not retried
		// (which the engine records as fetch-error).
		m.result(Result{URL: req.URL, Err: err.Error()}, false)
	}
	return nil, err
}

// held is a sitemap's stream holding the context its request was sent
// on, released when the stream is closed.
type held struct {
	io.ReadCloser
	release func()
}

func (h *held) Unwrap() io.ReadCloser { return h.ReadCloser }

func (h *held) Close() error {
	err := h.ReadCloser.Close()
	h.release()
	return err
}

// cutRecord is the skip-log record of a sitemap read only in part, for a
// reason other than the crawl's stop (see Interrupted): a read error, the
// request's timeout, malformed content, a limit of the sitemap package.
// The pages it lists past the cut are unknown to the crawl; the record
// says so, with the entries read before it (each queued or recorded).
func cutRecord(req *frontier.Request, reason skiplog.Reason, entries int, why string) *skiplog.Record {
	return &skiplog.Record{URL: req.URL, Authority: req.Authority(), Reason: reason, Depth: req.Depth, Referrer: req.Referrer,
		Err:    why,
		Detail: fmt.Sprintf("sitemap read only in part: %d entries read and accounted for, the rest not read: %s", entries, why)}
}

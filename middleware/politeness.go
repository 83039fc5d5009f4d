package middleware

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// Pacer is what the politeness stage needs of heed's politeness.Pacer
// (or of politeness/redispacer's, which keeps its state in Redis).
//
// The stage books a request's start with TryAcquire on the request's
// context, so a pacer that waits for a store gives up when the request is
// cancelled. It gives the slot back with Release on the same context, and
// a pacer must free the slot even when that context is done: a request
// cut short by a stopping crawl still ends.
type Pacer interface {
	TryAcquire(ctx context.Context, authority string) (ok bool, retryAt time.Time, err error)
	Release(ctx context.Context, authority string, fb politeness.Feedback)
}

// Politeness returns the pacing stage: a request starts only when its
// authority's pacer grants a slot; otherwise it is deferred (the frontier
// keeps it, and no worker sleeps on the host). The response, or the
// failure, is reported back to the pacer, which pauses the authority on
// 429 and 503 with Retry-After and backs off on repeated failures.
//
// An authority whose Crawl-delay is over the pacer's cap is excluded: the
// request becomes a skip-log record with reason crawl-delay-too-long. An
// authority the pacer gave up (requests in a row without an answer) has
// its requests recorded as host-unreachable, each with the failures as
// evidence.
func Politeness(p Pacer) Stage {
	return func(next Fetcher) Fetcher {
		return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			auth := req.Authority()
			ok, at, err := p.TryAcquire(ctx, auth)
			if err != nil {
				var tooLong *politeness.DelayTooLongError
				if errors.As(err, &tooLong) {
					return nil, &skiplog.Record{
						URL: req.URL, Authority: auth, Reason: skiplog.CrawlDelayTooLong,
						Detail: tooLong.Error(), Depth: req.Depth, Referrer: req.Referrer,
					}
				}
				var gone *politeness.UnreachableError
				if errors.As(err, &gone) {
					return nil, &skiplog.Record{
						URL: req.URL, Authority: auth, Reason: skiplog.HostUnreachable,
						Err: gone.LastErr, Detail: gone.Error(), Depth: req.Depth, Referrer: req.Referrer,
					}
				}
				return nil, err
			}
			if !ok {
				if at.IsZero() {
					at = time.Now().Add(pendingWait)
				}
				return nil, &DeferError{Until: at, Reason: "pacing"}
			}
			resp, err := next.Fetch(ctx, req)
			fb := feedback(resp, err)
			if req.Kind == frontier.KindRobots {
				// An unreachable robots.txt has its own retry schedule in
				// the robots stage; pausing the authority here as well
				// would only delay the accounting of its URLs.
				fb = politeness.Feedback{}
			}
			if resp != nil && resp.Stream != nil {
				// The body is still arriving: the slot is the host's until
				// the reader is done with it.
				resp.Stream = &releaseOnClose{ReadCloser: resp.Stream, release: func() { p.Release(ctx, auth, fb) }}
				return resp, err
			}
			p.Release(ctx, auth, fb)
			return resp, err
		})
	}
}

// feedback describes a fetch's outcome for the pacer.
func feedback(resp *Response, err error) politeness.Feedback {
	if resp != nil {
		return politeness.Feedback{Status: resp.Status, RetryAfter: resp.Header.Get("Retry-After"), Latency: resp.Elapsed}
	}
	var rec *skiplog.Record
	if errors.As(err, &rec) && rec.Reason == skiplog.MaxPages {
		// The budget below refused: nothing was sent, nothing failed.
		return politeness.Feedback{}
	}
	var de *DeferError
	if errors.As(err, &de) {
		// A retryable failure turned into a deferral by the retry stage.
		return politeness.Feedback{Status: de.Status, RetryAfter: de.RetryAfter, Err: de.Err}
	}
	return politeness.Feedback{Err: err}
}

// releaseOnClose gives a streamed response's authority slot back when the
// stream is closed, once however often Close is called.
type releaseOnClose struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

// Unwrap returns the stream the slot is held for.
func (r *releaseOnClose) Unwrap() io.ReadCloser { return r.ReadCloser }

func (r *releaseOnClose) Close() error {
	err := r.ReadCloser.Close()
	r.once.Do(r.release)
	return err
}

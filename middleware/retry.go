package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// Retry gives failed requests more tries without holding a worker: a
// retryable failure becomes a *DeferError, the engine requeues the request,
// and it passes the whole chain again (pacing included) when its time
// comes. Retryable: network errors and the statuses in Statuses.
//
// When the tries are spent, a response with a retryable status is returned
// as it is (the URL was fetched, with that status), and a network error
// becomes a skip-log record with reason fetch-error.
type Retry struct {
	// MaxRetries is the number of tries after the first; 0 means none.
	MaxRetries int
	// Statuses are the retryable HTTP statuses.
	Statuses []int
	// Base is the wait before the first retry; it doubles each try, up to
	// Max. A Retry-After header asking for longer wins.
	Base, Max time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger, when set, receives a warning for every retry (the URL, the
	// try that failed, its status or error, when the next try is) and for
	// every request whose tries are spent.
	Logger *slog.Logger
}

// DefaultRetry returns heed's retry policy: two retries, on 408, 429, 500,
// 502, 503, 504 and network errors, waiting 2 s then 4 s.
func DefaultRetry() *Retry {
	return &Retry{
		MaxRetries: 2,
		Statuses:   []int{http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout},
		Base:       2 * time.Second,
		Max:        time.Minute,
	}
}

// Stage returns the retry policy as a chain stage.
func (r *Retry) Stage() Stage {
	return func(next Fetcher) Fetcher {
		return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			resp, err := next.Fetch(ctx, req)
			if err != nil {
				if !retryableError(err) || ctx.Err() != nil {
					return resp, err
				}
				if req.Attempt >= r.MaxRetries {
					r.warn("request failed: no tries left; the URL is skip-logged as fetch-error", req, "tries", req.Attempt+1, "error", err.Error())
					return nil, &skiplog.Record{
						URL: req.URL, Authority: req.Authority(), Reason: skiplog.FetchError,
						Err: err.Error(), Depth: req.Depth, Referrer: req.Referrer,
						Detail: fmt.Sprintf("failed %d times", req.Attempt+1),
					}
				}
				return nil, r.deferral(req, 0, "", err)
			}
			if r.retryableStatus(resp.Status) && req.Attempt < r.MaxRetries {
				if resp.Stream != nil {
					resp.Stream.Close() // dropped: the retry fetches it anew
				}
				return nil, r.deferral(req, resp.Status, resp.Header.Get("Retry-After"), nil)
			}
			if r.retryableStatus(resp.Status) && r.MaxRetries > 0 {
				r.warn("request failed: no tries left; the response is kept", req, "tries", req.Attempt+1, "status", resp.Status)
			}
			return resp, nil
		})
	}
}

func (r *Retry) deferral(req *frontier.Request, status int, retryAfter string, err error) *DeferError {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	t := now()
	wait := r.Base << req.Attempt
	if r.Max > 0 && (wait > r.Max || wait <= 0) {
		wait = r.Max
	}
	if ra, ok := politeness.ParseRetryAfter(retryAfter, t); ok && ra > wait {
		wait = ra
	}
	if r.Logger != nil {
		attrs := []any{"url", req.URL, "attempt", req.Attempt + 1, "of", r.MaxRetries + 1}
		if status != 0 {
			attrs = append(attrs, "status", status)
		}
		if err != nil {
			attrs = append(attrs, "error", err.Error())
		}
		if retryAfter != "" {
			attrs = append(attrs, "retry_after", retryAfter)
		}
		r.Logger.Warn("request failed: retrying", append(attrs, "wait", wait, "next_try", t.Add(wait).UTC())...)
	}
	req.Attempt++
	return &DeferError{Until: systemNow().Add(wait), Reason: "retry", Status: status, RetryAfter: retryAfter, Err: err}
}

// warn logs a request whose tries are spent.
func (r *Retry) warn(msg string, req *frontier.Request, attrs ...any) {
	if r.Logger != nil {
		r.Logger.Warn(msg, append([]any{"url", req.URL}, attrs...)...)
	}
}

func (r *Retry) retryableStatus(code int) bool {
	for _, s := range r.Statuses {
		if s == code {
			return true
		}
	}
	return false
}

// retryableError reports whether a fetch error is a failure to get a
// response (worth another try) rather than a decision of a stage.
func retryableError(err error) bool {
	var rec *skiplog.Record
	var de *DeferError
	if errors.As(err, &rec) || errors.As(err, &de) || errors.Is(err, context.Canceled) {
		return false
	}
	return true
}

// Package middleware owns heed's request chain: the stages every request
// passes between the frontier and the downloader, and what each stage may
// decide about it.
//
// The model is net/http's RoundTripper composed by wrapping: a [Fetcher]
// turns a request into a response, and a [Stage] wraps a Fetcher in another
// one. heed's default chain, outermost first, is
//
//	scope → robots → budget check → politeness → budget → retry → downloader
//
// The budget is spent only once politeness has let the request start,
// and checked (without spending) before, so that the requests of a spent
// budget are accounted for at once. With an HTTP cache, the cache sits
// between the budget check and politeness, and a page it serves spends
// the budget as it is served.
//
// Below the chain, [Headers] is the transport that adds a crawl's own
// headers to every request it sends (pages, robots.txt, sitemaps), each
// first checked by [CheckHeader].
//
// A stage that excludes a URL returns a *skiplog.Record as its error; a
// stage that wants the request tried again later (the authority is not
// ready, robots.txt is not known yet, a retryable failure) returns a
// *[DeferError]; the engine puts the request back in the frontier. Every
// stage can be tested alone with a fake next Fetcher.
//
// The robots stage decides with [DecideRobots], the one place where an
// authority's robots.txt and a URL become a verdict with its evidence;
// the sitemap inventory and `heed robots check` call it too, and every
// output that reports a verdict as data writes [RobotsReport], made by
// [RobotsDecision.Report], so that they all say it with the same fields.
//
// The package knows nothing about colly or HTML: the downloader at the
// bottom of the chain is a Fetcher supplied by the crawler.
package middleware

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// Fetcher turns a request into a response.
//
// A Fetcher returns a *skiplog.Record when it excluded the URL, a
// *DeferError when the request should come back later, and any other error
// when the fetch failed.
type Fetcher interface {
	Fetch(ctx context.Context, req *frontier.Request) (*Response, error)
}

// FetcherFunc adapts a function to the Fetcher interface.
type FetcherFunc func(ctx context.Context, req *frontier.Request) (*Response, error)

// Fetch calls f(ctx, req).
func (f FetcherFunc) Fetch(ctx context.Context, req *frontier.Request) (*Response, error) {
	return f(ctx, req)
}

// Stage wraps a Fetcher: it may answer a request itself, change it, or pass
// it on to next.
type Stage func(next Fetcher) Fetcher

// Chain builds a Fetcher from a downloader and stages given outermost
// first: Chain(d, a, b) answers a request with a(b(d)).
func Chain(downloader Fetcher, stages ...Stage) Fetcher {
	f := downloader
	for i := len(stages) - 1; i >= 0; i-- {
		f = stages[i](f)
	}
	return f
}

// Response is a downloaded response. Redirects are not followed by heed's
// downloader: a 3xx response is returned as it is, and the engine queues
// its Location as a new request that passes the whole chain again.
type Response struct {
	// Request is the request this response answers.
	Request *frontier.Request
	// URL is the URL that was fetched.
	URL string
	// Status is the HTTP status code.
	Status int
	// Header is the response header.
	Header http.Header
	// Body is the response body, decompressed, at most the downloader's
	// size limit.
	Body []byte
	// Stream, when not nil, is the body as a stream and Body is nil: a
	// downloader streams bodies too large to hold (heed's sitemaps, up to
	// 50 MiB uncompressed, are read as they arrive). Whoever ends up with
	// the Response must close it, and a stage that drops such a response
	// closes it first. The politeness stage keeps the authority's slot
	// until it is closed, so a long body holds its host like any request.
	// A stage that wraps Stream gives the wrapper an Unwrap() io.ReadCloser
	// method returning the stream it wraps, so that the reader can reach
	// what the downloader made (package discovery stops its stream's
	// deadline while it queues what it read).
	Stream io.ReadCloser
	// Truncated reports that the body was cut at the size limit.
	Truncated bool
	// Elapsed is the time from sending the request to the end of the body.
	Elapsed time.Duration
	// FromCache reports that the response was served from heed's HTTP
	// cache (package httpcache) without contacting the site; it passed
	// no pacer.
	FromCache bool
	// Native is the downloader's own response value, for callbacks that
	// need it (heed's crawler keeps colly's response here).
	Native any
	// Recycle, when not nil, gives Body's memory back to the downloader
	// for a later response, and leaves Body (and the body Native
	// carries) nil. The engine calls it at most once, when nothing can
	// still hold the body: no spider callback saw the response and no
	// stage kept it (heed's HTTP cache keeps bodies, so with a cache it is
	// never called). A stage or callback that keeps Body needs no more
	// than not calling it.
	Recycle func()
}

// DeferError asks the engine to put a request back in the frontier and not
// to hand its authority out before Until.
type DeferError struct {
	// Until is the earliest time to try the request again, on the system
	// clock: the frontier and the pacer wait on it. A stage that keeps
	// the crawl's own clock (RobotsPolicy.Now, Retry.Now: WithClock in
	// package crawler) measures the wait on that clock and adds it to
	// time.Now (see systemTime), so that a clock set apart from the
	// system's never strands a request.
	Until time.Time
	// Reason says why, for logs and stats: "pacing", "robots-pending",
	// "robots-unreachable", "retry".
	Reason string
	// Status is the HTTP status that caused the deferral, if any.
	Status int
	// RetryAfter is the response's raw Retry-After header, if any.
	RetryAfter string
	// Err is the error that caused the deferral, if any.
	Err error
}

func (e *DeferError) Error() string {
	msg := "deferred (" + e.Reason + ") until " + e.Until.Format(time.RFC3339Nano)
	if e.Status != 0 {
		msg += fmt.Sprintf(", status %d", e.Status)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *DeferError) Unwrap() error { return e.Err }

// systemNow is the system clock that DeferError.Until is given in (a
// test of this package may stand its fake clock in for it).
var systemNow = time.Now

// systemTime turns t, read on clock, into the same moment on the system
// clock: the time a DeferError's Until is given in.
func systemTime(clock func() time.Time, t time.Time) time.Time {
	return systemNow().Add(t.Sub(clock()))
}

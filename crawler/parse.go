package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/stats"
)

// ParseResult is what one callback run produced: heed's scrapy parse.
type ParseResult struct {
	// Items are the items the callbacks emitted, in order, as they
	// emitted them (no pipeline ran).
	Items []any
	// Requests are the requests they followed, in order: resolved and
	// absolute, with their callback, depth and referrer, not yet checked
	// by scope or robots.txt. A link no LinkRule admits is among them,
	// with middleware.MetaNoRule in its Meta.
	Requests []*frontier.Request
	// CallbackErrors counts callbacks that panicked (each logged).
	CallbackErrors int64
}

// recorder collects a parse run's output.
type recorder struct {
	mu  sync.Mutex
	res ParseResult
}

func (rc *recorder) follow(req *frontier.Request) {
	rc.mu.Lock()
	rc.res.Requests = append(rc.res.Requests, req)
	rc.mu.Unlock()
}

func (rc *recorder) emit(item any) {
	rc.mu.Lock()
	rc.res.Items = append(rc.res.Items, item)
	rc.mu.Unlock()
}

// Parse runs the callbacks of the handler named callback ("" for the
// default handler) on one response, outside any crawl, and returns what
// they emitted and followed: nothing is fetched, queued, piped or
// exported, and the crawler can still Run afterwards. It is what
// `parse URL --callback NAME` and heed's test helpers (package heedtest)
// use, for a response downloaded live, read from the HTTP cache or built
// from a fixture file.
//
// resp needs its Request (at least the URL), Status, Header and Body; a
// non-2xx status runs the OnError callbacks, as in a crawl. An unknown
// callback name or a request without a parseable URL is an error.
func (c *Crawler) Parse(ctx context.Context, callback string, resp *middleware.Response) (*ParseResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if resp == nil || resp.Request == nil {
		return nil, errors.New("crawler: Parse of a response without its request")
	}
	if _, err := parseHTTPURL(resp.Request.URL); err != nil {
		return nil, fmt.Errorf("crawler: Parse: %w", err)
	}
	if c.handler(callback) == nil {
		return nil, fmt.Errorf("crawler: Parse: no handler named %q (the spider's Setup registers them with Handle)", callback)
	}
	req := *resp.Request
	req.Callback = callback
	in := *resp
	in.Request = &req
	if in.URL == "" {
		in.URL = req.URL
	}
	if in.Header == nil {
		in.Header = http.Header{}
	}
	rec := &recorder{}
	r := &run{c: c, cfg: &c.cfg, stats: stats.New(c.cfg.now), record: rec}
	if in.Status < 200 || in.Status >= 300 {
		r.dispatchError(ctx, &in)
	} else {
		r.dispatch(ctx, &in)
	}
	rec.res.CallbackErrors = r.stats.Snapshot().CallbackErrors
	return &rec.res, nil
}

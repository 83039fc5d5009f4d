package crawler

import (
	"context"
	"sync"

	"github.com/heedcrawl/heed/frontier"
)

// follows buffers the links a page's callbacks follow, so that they are
// pushed at once when the callbacks are done: with a durable frontier one
// write and one fsync for the page instead of one per link, and all of
// them on disk before the page is done.
type follows struct {
	mu   sync.Mutex
	open map[*frontier.Request]*pageLinks
}

// pageLinks are the links of one page waiting to be pushed, and the count
// of those dropped over the page's link limit. Once pushed, a buffer goes
// back to linkBuffers for another page: no frontier keeps the slice, only
// (some of) the requests in it.
type pageLinks struct {
	reqs    []*frontier.Request
	dropped int64
}

var linkBuffers = sync.Pool{New: func() any { return &pageLinks{reqs: make([]*frontier.Request, 0, 16)} }}

// release returns buf to linkBuffers, emptied; a buffer grown far past a
// common page's links is left to the collector.
func (buf *pageLinks) release() {
	if cap(buf.reqs) > 1024 {
		return
	}
	clear(buf.reqs)
	buf.reqs, buf.dropped = buf.reqs[:0], 0
	linkBuffers.Put(buf)
}

// follow queues a link found on parent's page: into parent's buffer while
// its callbacks run (at most the link limit; the rest are counted), at
// once otherwise (a callback that kept a Response).
func (r *run) follow(ctx context.Context, parent, req *frontier.Request) {
	f := &r.follows
	f.mu.Lock()
	if buf, ok := f.open[parent]; ok {
		if len(buf.reqs) >= r.cfg.maxLinks {
			buf.dropped++
		} else {
			buf.reqs = append(buf.reqs, req)
		}
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	r.enqueue(ctx, req)
}

// collectFollows starts buffering parent's links.
func (r *run) collectFollows(parent *frontier.Request) {
	f := &r.follows
	f.mu.Lock()
	if f.open == nil {
		f.open = make(map[*frontier.Request]*pageLinks)
	}
	f.open[parent] = linkBuffers.Get().(*pageLinks)
	f.mu.Unlock()
}

// flushFollows pushes parent's buffered links, if any, and ends parent's
// lease: in one call when the frontier is a completer, the links first
// otherwise.
func (r *run) flushFollows(ctx context.Context, parent *frontier.Request) {
	f := &r.follows
	f.mu.Lock()
	buf := f.open[parent]
	delete(f.open, parent)
	f.mu.Unlock()
	if buf == nil {
		r.done(ctx, parent)
		return
	}
	if buf.dropped > 0 {
		r.stats.LinksCapped(buf.dropped)
		r.cfg.logger.Warn("links over the page's limit not followed", "url", parent.URL,
			"followed", len(buf.reqs), "not_followed", buf.dropped, "limit", r.cfg.maxLinks)
	}
	defer buf.release()
	c, ok := r.front.(completer)
	if !ok {
		r.pushAll(ctx, buf.reqs, nil)
		r.done(ctx, parent)
		return
	}
	res, errs, err := c.Complete(ctx, parent, buf.reqs)
	for i, req := range buf.reqs {
		r.pushed(req, res[i], errs[i])
	}
	if err != nil {
		r.cfg.logger.Error("frontier done", "url", parent.URL, "error", err)
	}
}

// completer is a frontier that queues a page's links and ends the page's
// lease in one call (redisfrontier.Frontier: one round trip to Redis
// instead of two).
type completer interface {
	Complete(ctx context.Context, req *frontier.Request, links []*frontier.Request) ([]frontier.PushResult, []error, error)
}

// batchPusher is a frontier that pushes many requests at once
// (durable.Frontier).
type batchPusher interface {
	PushBatch(ctx context.Context, reqs []*frontier.Request) ([]frontier.PushResult, []error)
}

// enqueueAll pushes requests, in one batch when the frontier can, and
// accounts for each as enqueue does; it returns the result of each.
func (r *run) enqueueAll(ctx context.Context, reqs []*frontier.Request) []frontier.PushResult {
	res := make([]frontier.PushResult, len(reqs))
	r.pushAll(ctx, reqs, res)
	return res
}

// pushAll is enqueueAll writing the results into res, or nowhere when res
// is nil (a page's links: nothing reads them but the accounting).
func (r *run) pushAll(ctx context.Context, reqs []*frontier.Request, res []frontier.PushResult) {
	bp, ok := r.front.(batchPusher)
	if !ok || len(reqs) < 2 {
		for i, req := range reqs {
			if x := r.enqueue(ctx, req); res != nil {
				res[i] = x
			}
		}
		return
	}
	got, errs := bp.PushBatch(ctx, reqs)
	for i, req := range reqs {
		r.pushed(req, got[i], errs[i])
	}
	copy(res, got)
}

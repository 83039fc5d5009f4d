package crawler

import (
	"sync"

	"github.com/heedcrawl/heed/skiplog"
)

// hooks are the crawl's signals, as in Scrapy: start, finish, item
// scraped, item dropped, request skipped. Hooks run on the goroutine that
// raised the signal (a worker for items and skips), so a slow hook slows
// that worker; they may be called concurrently.
type hooks struct {
	mu        sync.RWMutex
	onStart   []func(*Crawler)
	onFinish  []func(*Crawler, Summary)
	onItem    []func(any)
	onDropped []func(any, error)
	onSkip    []func(*skiplog.Record)
}

// OnStart registers fn to run when the crawl starts, before the seeds are
// queued.
func (c *Crawler) OnStart(fn func(*Crawler)) {
	c.hooks.mu.Lock()
	c.hooks.onStart = append(c.hooks.onStart, fn)
	c.hooks.mu.Unlock()
}

// OnFinish registers fn to run when the crawl has finished, with its
// summary, after the exporters and the skip log are closed.
func (c *Crawler) OnFinish(fn func(*Crawler, Summary)) {
	c.hooks.mu.Lock()
	c.hooks.onFinish = append(c.hooks.onFinish, fn)
	c.hooks.mu.Unlock()
}

// OnItem registers fn to run for every item that reached the exporters
// (Scrapy's item_scraped), with the item as the pipelines left it.
func (c *Crawler) OnItem(fn func(item any)) {
	c.hooks.mu.Lock()
	c.hooks.onItem = append(c.hooks.onItem, fn)
	c.hooks.mu.Unlock()
}

// OnItemDropped registers fn to run for every item that did not reach the
// exporters: err is a *DropError when a pipeline dropped it (Scrapy's
// item_dropped), any other error when a stage or an exporter failed
// (item_error).
func (c *Crawler) OnItemDropped(fn func(item any, err error)) {
	c.hooks.mu.Lock()
	c.hooks.onDropped = append(c.hooks.onDropped, fn)
	c.hooks.mu.Unlock()
}

// OnSkip registers fn to run for every skip-log record, as it is written.
func (c *Crawler) OnSkip(fn func(*skiplog.Record)) {
	c.hooks.mu.Lock()
	c.hooks.onSkip = append(c.hooks.onSkip, fn)
	c.hooks.mu.Unlock()
}

func (h *hooks) started(c *Crawler) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onStart {
		f(c)
	}
}

func (h *hooks) finished(c *Crawler, s Summary) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onFinish {
		f(c, s)
	}
}

func (h *hooks) item(it any) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onItem {
		f(it)
	}
}

func (h *hooks) dropped(it any, err error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onDropped {
		f(it, err)
	}
}

func (h *hooks) skipped(rec *skiplog.Record) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onSkip {
		f(rec)
	}
}

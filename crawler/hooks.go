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
	started  signal[*Crawler]
	finished signal[Summary]
	item     signal[any]
	dropped  signal[droppedItem]
	skipped  signal[*skiplog.Record]
}

// signal is one hook's registered functions.
type signal[T any] struct {
	mu  sync.RWMutex
	fns []func(T)
}

func (s *signal[T]) add(fn func(T)) {
	s.mu.Lock()
	s.fns = append(s.fns, fn)
	s.mu.Unlock()
}

// raise calls every function registered, in order.
func (s *signal[T]) raise(v T) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, fn := range s.fns {
		fn(v)
	}
}

type droppedItem struct {
	item any
	err  error
}

// OnStart registers fn to run when the crawl starts, before the seeds are
// queued.
func (c *Crawler) OnStart(fn func(*Crawler)) { c.hooks.started.add(fn) }

// OnFinish registers fn to run when the crawl has finished, with its
// summary, after the exporters and the skip log are closed.
func (c *Crawler) OnFinish(fn func(*Crawler, Summary)) {
	c.hooks.finished.add(func(s Summary) { fn(c, s) })
}

// OnItem registers fn to run for every item that reached the exporters
// (Scrapy's item_scraped), with the item as the pipelines left it.
func (c *Crawler) OnItem(fn func(item any)) { c.hooks.item.add(fn) }

// OnItemDropped registers fn to run for every item that did not reach the
// exporters: err is a *DropError when a pipeline dropped it (Scrapy's
// item_dropped), any other error when a stage or an exporter failed
// (item_error).
func (c *Crawler) OnItemDropped(fn func(item any, err error)) {
	c.hooks.dropped.add(func(d droppedItem) { fn(d.item, d.err) })
}

// OnSkip registers fn to run for every skip-log record, as it is written.
func (c *Crawler) OnSkip(fn func(*skiplog.Record)) { c.hooks.skipped.add(fn) }

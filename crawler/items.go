package crawler

import (
	"context"
	"errors"

	"github.com/heedcrawl/heed/pipeline"
)

// The item pipeline is package pipeline's; these are the names a spider
// writes, and the engine's emit path that calls it.

// Pipeline is one stage of item processing, as in Scrapy's item
// pipelines: it may transform, validate or enrich an item and return it
// (the same value or a new one, of any type), drop it by returning an
// error made with Drop, or fail with any other error (pipeline.Stage).
//
// A dropped or failed item goes no further: it is counted (Snapshot's
// ItemsDropped, Dropped by reason, ItemErrors), logged with its page's URL
// and handed to the OnItemDropped hooks. Neither ever stops the crawl; a
// panicking stage is recovered and counts as a failure.
//
// The response the item was emitted from travels in ctx, which derives
// from the run's: ItemSource(ctx) returns it, for a stage that records
// where an item came from. Process may be called from several goroutines
// at once (one per worker); a stage with state guards it.
type Pipeline = pipeline.Stage

// PipelineFunc adapts a function to the Pipeline interface.
type PipelineFunc = pipeline.StageFunc

// DropError is a pipeline's decision to drop an item, with the reason.
// The reason is counted in the crawl's statistics, so it should name a
// kind of problem ("no price"), not one item.
type DropError = pipeline.DropError

// Drop returns the error a pipeline returns to drop an item for reason.
func Drop(reason string) error { return pipeline.Drop(reason) }

// Stage makes a pipeline stage of a function of one item type: items of
// type T go through fn, items of any other type pass through untouched
// (pipeline.Typed). It spares a stage the type switch, so pipelines for
// several item types compose:
//
//	c.Pipeline(
//		crawler.Stage(func(ctx context.Context, p Product) (Product, error) {
//			if p.Price == 0 {
//				return p, crawler.Drop("no price")
//			}
//			p.URL = crawler.ItemSource(ctx).URL.String()
//			return p, nil
//		}),
//	)
//
// When the emitted values are pointers, T is the pointer type: a stage
// for Product does not see a *Product, nor a stage for *Product a
// Product. The crawl says so: the first item that reaches a stage in the
// other form is a warning on the crawl's logger, and at the end of the
// crawl a stage that items reached and none matched is a warning naming
// the types it saw (once per stage).
func Stage[T any](fn func(ctx context.Context, item T) (T, error)) Pipeline {
	return pipeline.Typed(fn)
}

// Dedup returns a stage that drops every item of type T whose key was
// seen before in this crawl, with reason "duplicate", like the duplicates
// filter in Scrapy's documentation (pipeline.Dedup). Items of other types
// pass. It keeps every key in memory for the whole crawl.
func Dedup[T any, K comparable](key func(T) K) Pipeline { return pipeline.Dedup(key) }

// ItemSource returns the response the item being processed was emitted
// from: its URL, status, headers and body, and the request with its depth,
// referrer, callback name and meta. It returns nil when ctx is not a
// pipeline's.
func ItemSource(ctx context.Context) *Response {
	r, _ := pipeline.Source(ctx).(*Response)
	return r
}

// Exporter writes items somewhere: a feed file, a database, a channel
// (pipeline.Exporter). Export is called for one item at a time, never
// concurrently, after the pipelines; Close once at the end of the crawl,
// also when it was interrupted. heed's exporters are in package feed:
// JSON Lines, JSON arrays and CSV, and feed.Open opens one on a file by
// its name.
type Exporter = pipeline.Exporter

// Pipeline appends item pipeline stages; items pass them in order. Call
// it before Run.
func (c *Crawler) Pipeline(p ...Pipeline) {
	c.mu.Lock()
	c.pipelines = append(c.pipelines, p...)
	c.mu.Unlock()
}

// Export adds exporters; every item that passes the pipelines goes to
// each of them. The crawl closes them when it ends. Call it before Run.
func (c *Crawler) Export(e ...Exporter) {
	c.mu.Lock()
	c.exporters = append(c.exporters, e...)
	c.mu.Unlock()
}

// newItemSink returns the run's sink: the stages and exporters given so
// far, warning on the crawl's logger.
func newItemSink(c *Crawler, cfg *config) *pipeline.Sink {
	c.mu.Lock()
	defer c.mu.Unlock()
	return pipeline.NewSink(c.pipelines, c.exporters, cfg.logger)
}

// emit takes one item through the pipelines, then to every exporter, on
// a context derived from the response's (the run's).
func (r *run) emit(resp *Response, item any) {
	if sc, ok := item.(SignalCarrier); ok {
		sc.SetPageSignals(resp.Signals())
	}
	if rec := r.withheld(resp); rec != nil {
		resp.loggedOnce.Do(func() { r.skip(rec) })
		r.stats.ItemDropped(string(rec.Reason))
		r.c.hooks.dropped.raise(droppedItem{item, rec})
		return
	}
	out, err := r.items.Put(pipeline.WithSource(resp.ctx, resp), item)
	if err != nil {
		r.itemFailed(resp, out, err)
		return
	}
	r.stats.Item()
	r.c.hooks.item.raise(out)
}

// itemFailed accounts for an item that did not reach the exporters.
func (r *run) itemFailed(resp *Response, item any, err error) {
	stage := -1
	var se *pipeline.StageError
	if errors.As(err, &se) {
		stage, err = se.Stage, se.Err
	}
	var drop *DropError
	if errors.As(err, &drop) {
		r.stats.ItemDropped(drop.Reason)
		r.cfg.logger.Info("item dropped", "url", resp.Request.URL, "stage", stage, "reason", drop.Reason)
	} else if stage < 0 {
		r.stats.ItemError()
		// An exporter's failure is said once, when it first happens; the
		// rest are counted (ItemErrors) and logged at debug level.
		if r.said.First(exportKey{}) {
			r.cfg.logger.Error("item not exported: the feed is incomplete (further losses are counted)", "url", resp.Request.URL, "error", err)
		} else {
			r.cfg.logger.Debug("item not exported", "url", resp.Request.URL, "error", err)
		}
	} else {
		r.stats.ItemError()
		r.cfg.logger.Error("item failed", "url", resp.Request.URL, "stage", stage, "error", err)
	}
	r.c.hooks.dropped.raise(droppedItem{item, err})
}

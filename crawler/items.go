package crawler

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
)

// Pipeline is one stage of item processing, as in Scrapy's item
// pipelines: it may transform, validate or enrich an item and return it
// (the same value or a new one, of any type), drop it by returning an
// error made with Drop, or fail with any other error.
//
// A dropped or failed item goes no further: it is counted (Snapshot's
// ItemsDropped, Dropped by reason, ItemErrors), logged with its page's URL
// and handed to the OnItemDropped hooks. Neither ever stops the crawl; a
// panicking stage is recovered and counts as a failure.
//
// The response the item was emitted from travels in ctx: ItemSource(ctx)
// returns it, for a stage that records where an item came from. Process
// may be called from several goroutines at once (one per worker); a stage
// with state guards it.
type Pipeline interface {
	Process(ctx context.Context, item any) (any, error)
}

// PipelineFunc adapts a function to the Pipeline interface.
type PipelineFunc func(ctx context.Context, item any) (any, error)

// Process calls f(ctx, item).
func (f PipelineFunc) Process(ctx context.Context, item any) (any, error) { return f(ctx, item) }

// DropError is a pipeline's decision to drop an item, with the reason.
// The reason is counted in the crawl's statistics, so it should name a
// kind of problem ("no price"), not one item.
type DropError struct{ Reason string }

func (e *DropError) Error() string { return "item dropped: " + e.Reason }

// Drop returns the error a pipeline returns to drop an item for reason.
func Drop(reason string) error { return &DropError{Reason: reason} }

// Stage makes a pipeline stage of a function of one item type: items of
// type T go through fn, items of any other type pass through untouched.
// It spares a stage the type switch, so pipelines for several item types
// compose:
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
// the types it saw (once per stage; see logging.go).
func Stage[T any](fn func(ctx context.Context, item T) (T, error)) Pipeline {
	return typedStage[T](fn)
}

// typedStage is a Stage: it knows its item type, so the crawl can tell a
// stage that items never match (stage_check.go).
type typedStage[T any] func(ctx context.Context, item T) (T, error)

func (s typedStage[T]) Process(ctx context.Context, item any) (any, error) {
	t, ok := item.(T)
	if !ok {
		return item, nil
	}
	return s(ctx, t)
}

func (typedStage[T]) itemType() reflect.Type { return reflect.TypeFor[T]() }

// Dedup returns a stage that drops every item of type T whose key was
// seen before in this crawl, with reason "duplicate", like the duplicates
// filter in Scrapy's documentation. Items of other types pass. It keeps
// every key in memory for the whole crawl.
func Dedup[T any, K comparable](key func(T) K) Pipeline {
	var mu sync.Mutex
	seen := make(map[K]struct{})
	return Stage(func(_ context.Context, item T) (T, error) {
		k := key(item)
		mu.Lock()
		defer mu.Unlock()
		if _, dup := seen[k]; dup {
			return item, Drop("duplicate")
		}
		seen[k] = struct{}{}
		return item, nil
	})
}

type sourceKey struct{}

// ItemSource returns the response the item being processed was emitted
// from: its URL, status, headers and body, and the request with its depth,
// referrer, callback name and meta. It returns nil when ctx is not a
// pipeline's.
func ItemSource(ctx context.Context) *Response {
	r, _ := ctx.Value(sourceKey{}).(*Response)
	return r
}

// Exporter writes items somewhere: a feed file, a database, a channel.
// Export is called for one item at a time, never concurrently, after the
// pipelines; Close once at the end of the crawl, also when it was
// interrupted, so Close is where a format writes its trailer (the JSON
// array's closing bracket) and flushes. heed's exporters are in package
// feed: JSON Lines, JSON arrays and CSV, and feed.Open opens one on a file
// by its name.
type Exporter interface {
	Export(item any) error
	Close() error
}

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

// itemSink runs emitted items through the pipelines and the exporters.
type itemSink struct {
	c         *Crawler
	cfg       *config
	pipelines []Pipeline
	mu        sync.Mutex
	exporters []Exporter
	closed    bool
	// What reached each typed stage (stage_check.go).
	tallyOnce sync.Once
	tallies   []stageTally
}

func newItemSink(c *Crawler, cfg *config) *itemSink {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &itemSink{c: c, cfg: cfg, pipelines: append([]Pipeline(nil), c.pipelines...), exporters: append([]Exporter(nil), c.exporters...)}
	return s
}

// emit takes one item through the pipelines, then to every exporter.
func (r *run) emit(resp *Response, item any) {
	if sc, ok := item.(SignalCarrier); ok {
		sc.SetPageSignals(resp.Signals())
	}
	if rec := r.withheld(resp); rec != nil {
		resp.loggedOnce.Do(func() { r.skip(rec) })
		r.stats.ItemDropped(string(rec.Reason))
		r.c.hooks.dropped(item, rec)
		return
	}
	s := r.items
	ctx := context.WithValue(resp.ctx, sourceKey{}, resp)
	for i, p := range s.pipelines {
		r.checkStage(i, p, item)
		out, err := runStage(ctx, p, item)
		if err != nil {
			r.itemFailed(resp, item, i, err)
			return
		}
		item = out
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		r.itemFailed(resp, item, -1, errors.New("item emitted after the crawl ended"))
		return
	}
	var errs []error
	for _, e := range s.exporters {
		if err := exportSafely(e, item); err != nil {
			errs = append(errs, err)
		}
	}
	s.mu.Unlock()
	if len(errs) > 0 {
		r.itemFailed(resp, item, -1, fmt.Errorf("export: %w", errors.Join(errs...)))
		return
	}
	r.stats.Item()
	r.c.hooks.item(item)
}

// itemFailed accounts for an item that did not reach the exporters.
func (r *run) itemFailed(resp *Response, item any, stage int, err error) {
	var drop *DropError
	if errors.As(err, &drop) {
		r.stats.ItemDropped(drop.Reason)
		r.cfg.logger.Info("item dropped", "url", resp.Request.URL, "stage", stage, "reason", drop.Reason)
	} else if stage < 0 {
		r.stats.ItemError()
		// An exporter's failure is said once, when it first happens; the
		// rest are counted (ItemErrors) and logged at debug level.
		if r.said.first(exportKey{}) {
			r.cfg.logger.Error("item not exported: the feed is incomplete (further losses are counted)", "url", resp.Request.URL, "error", err)
		} else {
			r.cfg.logger.Debug("item not exported", "url", resp.Request.URL, "error", err)
		}
	} else {
		r.stats.ItemError()
		r.cfg.logger.Error("item failed", "url", resp.Request.URL, "stage", stage, "error", err)
	}
	r.c.hooks.dropped(item, err)
}

// runStage runs one stage, turning a panic into an error: a bug in a
// pipeline costs one item, not the crawl.
func runStage(ctx context.Context, p Pipeline, item any) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("pipeline panicked: %v", v)
		}
	}()
	return p.Process(ctx, item)
}

func exportSafely(e Exporter, item any) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("exporter panicked: %v", v)
		}
	}()
	return e.Export(item)
}

func (s *itemSink) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for _, e := range s.exporters {
		if err := e.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

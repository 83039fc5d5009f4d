package crawler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/heedcrawl/heed/skiplog"
)

// Pipeline is one stage of item processing, as in Scrapy: it may
// transform, validate or enrich an item and return it, drop it by
// returning an error made with Drop, or fail with any other error. Errors
// are counted and logged; they never stop the crawl.
type Pipeline interface {
	Process(ctx context.Context, item any) (any, error)
}

// PipelineFunc adapts a function to the Pipeline interface.
type PipelineFunc func(ctx context.Context, item any) (any, error)

// Process calls f(ctx, item).
func (f PipelineFunc) Process(ctx context.Context, item any) (any, error) { return f(ctx, item) }

// DropError is a pipeline's decision to drop an item, with the reason.
type DropError struct{ Reason string }

func (e *DropError) Error() string { return "item dropped: " + e.Reason }

// Drop returns the error a pipeline returns to drop an item.
func Drop(reason string) error { return &DropError{Reason: reason} }

// Exporter writes items somewhere (a feed file, a database). Export is
// called for one item at a time, never concurrently; Close once at the end
// of the crawl, also when it was interrupted.
type Exporter interface {
	Export(item any) error
	Close() error
}

// Pipeline appends item pipelines; items pass them in order.
func (c *Crawler) Pipeline(p ...Pipeline) {
	c.mu.Lock()
	c.pipelines = append(c.pipelines, p...)
	c.mu.Unlock()
}

// Export adds exporters; every item that passes the pipelines goes to
// each of them.
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
}

func newItemSink(c *Crawler, cfg *config) *itemSink {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &itemSink{c: c, cfg: cfg, pipelines: append([]Pipeline(nil), c.pipelines...), exporters: append([]Exporter(nil), c.exporters...)}
	if cfg.itemOut != nil {
		s.exporters = append(s.exporters, NewJSONLines(cfg.itemOut))
	}
	return s
}

func (r *run) emit(resp *Response, item any) {
	s := r.items
	ctx := context.Background()
	for _, p := range s.pipelines {
		out, err := p.Process(ctx, item)
		var drop *DropError
		switch {
		case errors.As(err, &drop):
			r.stats.itemDropped()
			r.cfg.logger.Info("item dropped", "url", resp.Request.URL, "reason", drop.Reason)
			return
		case err != nil:
			r.stats.itemError()
			r.cfg.logger.Error("item pipeline", "url", resp.Request.URL, "error", err)
			return
		}
		item = out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		r.stats.itemError()
		r.cfg.logger.Error("item emitted after the crawl ended", "url", resp.Request.URL)
		return
	}
	failed := false
	for _, e := range s.exporters {
		if err := e.Export(item); err != nil {
			failed = true
			r.cfg.logger.Error("item export", "url", resp.Request.URL, "error", err)
		}
	}
	if failed {
		r.stats.itemError()
		return
	}
	r.stats.item()
	r.c.hooks.item(item)
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

// JSONLines is an Exporter writing one JSON value per line. Each item is
// written with a single Write call, unbuffered, so an interrupted crawl
// leaves only complete lines.
type JSONLines struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewJSONLines returns a JSON Lines exporter writing to w.
func NewJSONLines(w io.Writer) *JSONLines {
	j := &JSONLines{w: w}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

// Export writes one item as a line.
func (j *JSONLines) Export(item any) error {
	j.buf.Reset()
	if err := j.enc.Encode(item); err != nil {
		return fmt.Errorf("jsonlines: %w", err)
	}
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

// Close syncs the underlying file when it can; it does not close it (the
// caller that opened it does).
func (j *JSONLines) Close() error {
	if s, ok := j.w.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

// hooks are the crawl's signals, as in Scrapy: start, finish, item
// scraped, request skipped.
type hooks struct {
	mu       sync.RWMutex
	onStart  []func(*Crawler)
	onFinish []func(*Crawler, Summary)
	onItem   []func(any)
	onSkip   []func(*skiplog.Record)
}

// OnStart registers fn to run when the crawl starts.
func (c *Crawler) OnStart(fn func(*Crawler)) {
	c.hooks.mu.Lock()
	c.hooks.onStart = append(c.hooks.onStart, fn)
	c.hooks.mu.Unlock()
}

// OnFinish registers fn to run when the crawl has finished, with its
// summary.
func (c *Crawler) OnFinish(fn func(*Crawler, Summary)) {
	c.hooks.mu.Lock()
	c.hooks.onFinish = append(c.hooks.onFinish, fn)
	c.hooks.mu.Unlock()
}

// OnItem registers fn to run for every item that reached the exporters.
func (c *Crawler) OnItem(fn func(item any)) {
	c.hooks.mu.Lock()
	c.hooks.onItem = append(c.hooks.onItem, fn)
	c.hooks.mu.Unlock()
}

// OnSkip registers fn to run for every skip-log record.
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

func (h *hooks) skipped(rec *skiplog.Record) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, f := range h.onSkip {
		f(rec)
	}
}

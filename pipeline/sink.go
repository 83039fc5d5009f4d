package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// Exporter writes items somewhere: a feed file, a database, a channel.
// Export is called for one item at a time, never concurrently, after the
// stages; Close once at the end, also when a crawl was interrupted, so
// Close is where a format writes its trailer (the JSON array's closing
// bracket) and flushes. heed's exporters are in package feed.
type Exporter interface {
	Export(item any) error
	Close() error
}

// ErrClosed is Put's error for an item that arrives after Close.
var ErrClosed = errors.New("item emitted after the crawl ended")

// StageError is Put's error for an item a stage dropped or failed: Err
// is the stage's error (a *DropError for a drop, an error saying so for
// a panic), Stage its index among the Sink's stages.
type StageError struct {
	Stage int
	Err   error
}

func (e *StageError) Error() string { return fmt.Sprintf("pipeline stage %d: %v", e.Stage, e.Err) }

// Unwrap returns the stage's error.
func (e *StageError) Unwrap() error { return e.Err }

// ExportError is Put's error for an item that passed the stages and that
// one exporter or more did not take: Err joins their errors. The other
// exporters took the item.
type ExportError struct{ Err error }

func (e *ExportError) Error() string { return "export: " + e.Err.Error() }

// Unwrap returns the exporters' errors.
func (e *ExportError) Unwrap() error { return e.Err }

// Sink takes items through a fixed list of stages to a fixed list of
// exporters. Make one with NewSink; it is safe for concurrent use.
type Sink struct {
	stages []Stage
	logger *slog.Logger
	checks []check // one per stage, used by typed ones (check.go)

	mu        sync.Mutex // held while exporting: exporters never run concurrently
	exporters []Exporter
	closed    bool
}

// NewSink returns a Sink running stages, in order, then exporters. The
// Sink keeps its own copies of both lists. logger receives the
// typed-stage warnings; nil discards them.
func NewSink(stages []Stage, exporters []Exporter, logger *slog.Logger) *Sink {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Sink{
		stages:    append([]Stage(nil), stages...),
		exporters: append([]Exporter(nil), exporters...),
		logger:    logger,
		checks:    make([]check, len(stages)),
	}
}

// Put takes item through the stages, with ctx, then to every exporter.
// It returns the item as the stages left it, and nil when every exporter
// took it; otherwise a *StageError, an *ExportError or ErrClosed.
func (s *Sink) Put(ctx context.Context, item any) (any, error) {
	for i, st := range s.stages {
		s.check(i, st, item)
		out, err := runStage(ctx, st, item)
		if err != nil {
			return item, &StageError{Stage: i, Err: err}
		}
		item = out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return item, ErrClosed
	}
	var errs []error
	for _, e := range s.exporters {
		if err := exportSafely(e, item); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return item, &ExportError{Err: errors.Join(errs...)}
	}
	return item, nil
}

// Close closes every exporter, once, and returns their errors joined.
// Items Put after Close are refused with ErrClosed.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, e := range s.exporters {
		if err := e.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runStage runs one stage, turning a panic into an error: a bug in a
// stage costs one item, not the crawl.
func runStage(ctx context.Context, st Stage, item any) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("pipeline panicked: %v", v)
		}
	}()
	return st.Process(ctx, item)
}

func exportSafely(e Exporter, item any) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("exporter panicked: %v", v)
		}
	}()
	return e.Export(item)
}

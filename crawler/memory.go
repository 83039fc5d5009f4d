package crawler

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// Memory returns the default backend: the frontier in memory
// (frontier.Memory), pacing by a politeness.Pacer, robots.txt cached in the
// robots stage, the skip log written to WithSkipLog's writer. Nothing
// outlives the process: a cancelled crawl drains its queue into the skip
// log, each URL as interrupted (or robots-unreachable).
func Memory() Backend { return memoryBackend{} }

// memoryBackend is Memory, with the frontier of WithFrontier when given.
type memoryBackend struct{ front frontier.Frontier }

func (memoryBackend) Check(*Job) error { return nil }

func (b memoryBackend) Open(_ context.Context, j *Job) (Session, error) {
	pacer, err := politeness.New(j.Pacing...)
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	s := &memorySession{pacer: pacer, front: b.front, skips: NewSkipWriter(j), log: j.Logger}
	if s.front == nil {
		s.front = frontier.NewMemory(append(j.Frontier, frontier.WithGate(pacer))...)
	}
	return s, nil
}

// NewSkipWriter returns the writer of the job's skip log, WithSkipLog's
// (discarding without it), stamping records with the crawl's clock.
func NewSkipWriter(j *Job) *skiplog.Writer {
	return skiplog.NewWriter(j.SkipLog, skiplog.WithClock(j.Now))
}

type memorySession struct {
	pacer *politeness.Pacer
	front frontier.Frontier
	skips *skiplog.Writer
	log   *slog.Logger
}

func (s *memorySession) Pacer() Pacer                                       { return s.pacer }
func (s *memorySession) Frontier() frontier.Frontier                        { return s.front }
func (s *memorySession) Chain(*middleware.RobotsPolicy, *middleware.Budget) {}
func (s *memorySession) Start(context.Context) error                        { return nil }
func (s *memorySession) Accounted(*frontier.Request) bool                   { return false }
func (s *memorySession) Count(Event)                                        {}
func (s *memorySession) Stop() StopPolicy                                   { return Drain }
func (s *memorySession) Close() error                                       { return nil }
func (s *memorySession) Record(rec *skiplog.Record) bool                    { return WriteSkip(s.skips, rec, s.log) }
func (s *memorySession) Finish(sum *Summary) error                          { return FinishSkips(s.skips, sum) }

// WriteSkip writes rec to w and reports true: the record counts even if
// the write fails, which is logged and kept by w to fail the run
// (FinishSkips), so that an incomplete log is never taken for a complete
// one.
func WriteSkip(w *skiplog.Writer, rec *skiplog.Record, log *slog.Logger) bool {
	if err := w.Write(rec); err != nil {
		// The first lost record is said at once; the rest are counted
		// (the summary says how many), logged at debug level.
		attrs := []any{"url", rec.URL, "reason", string(rec.Reason), "error", err}
		if w.Summary().Failed == 1 {
			log.Error("skip log: record not written; the skip log is incomplete and the crawl will fail (further losses are counted)", attrs...)
		} else {
			log.Debug("skip log: record not written", attrs...)
		}
	}
	return true
}

// FinishSkips completes a summary with the skip log w wrote, and returns
// its write error.
func FinishSkips(w *skiplog.Writer, sum *Summary) error {
	sum.Skipped = w.Summary()
	if err := w.Err(); err != nil {
		return fmt.Errorf("crawler: skip log: %w", err)
	}
	return nil
}

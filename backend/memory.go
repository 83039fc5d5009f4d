package backend

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// Memory is the default backend: the frontier in memory (frontier.Memory,
// or Frontier when set), pacing by a politeness.Pacer, robots.txt cached
// in the robots stage, the skip log written to Job.SkipLog. Nothing
// outlives the process: a cancelled crawl drains its queue into the skip
// log, each URL as interrupted (or robots-unreachable).
type Memory struct {
	// Frontier is a frontier of the caller's (crawler.WithFrontier), used
	// instead of a frontier.Memory.
	Frontier frontier.Frontier
}

// Check accepts every job.
func (Memory) Check(*Job) error { return nil }

// Open begins the run.
func (b Memory) Open(_ context.Context, j *Job) (Session, error) {
	pacer, err := politeness.New(j.Pacing...)
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	s := &memorySession{pacer: pacer, front: b.Frontier, skips: NewSkipLog(j), own: b.Frontier == nil}
	if s.own {
		s.front = frontier.NewMemory(append(j.Frontier, frontier.WithGate(pacer))...)
	}
	return s, nil
}

type memorySession struct {
	pacer *politeness.Pacer
	front frontier.Frontier
	skips *SkipLog
	own   bool // front is Memory's own, asking the job's admission
}

func (s *memorySession) Pacer() Pacer                                       { return s.pacer }
func (s *memorySession) Frontier() frontier.Frontier                        { return s.front }
func (s *memorySession) Chain(*middleware.RobotsPolicy, *middleware.Budget) {}
func (s *memorySession) Start(context.Context) error                        { return nil }
func (s *memorySession) Accounted(*frontier.Request) bool                   { return false }
func (s *memorySession) Count(Event)                                        {}
func (s *memorySession) Stop() StopPolicy                                   { return Drain }
func (s *memorySession) Close() error                                       { return nil }
func (s *memorySession) Record(rec *skiplog.Record) bool                    { return s.skips.Record(rec) }
func (s *memorySession) Finish(res *Result) error                           { return s.skips.Finish(res) }

// Admits reports whether the frontier is Memory's own, opened with the
// job's admission (not a frontier of the caller's).
func (s *memorySession) Admits() bool { return s.own }

// SkipLog is a job's skip log as the memory and fleet backends keep it:
// Job.SkipLog (discarding without it), records stamped with the crawl's
// clock, one record per URL (skiplog.OnceWriter, whose doc gives its
// memory cost), and write errors logged.
type SkipLog struct {
	w   *skiplog.OnceWriter
	log *slog.Logger
}

// NewSkipLog returns the job's skip log.
func NewSkipLog(j *Job) *SkipLog {
	return &SkipLog{w: skiplog.NewOnceWriter(skiplog.NewWriter(j.SkipLog, skiplog.WithClock(j.Now))), log: j.Logger}
}

// Record writes rec unless its URL has a record already (whatever the
// reason), and reports whether it was the URL's first: the Session.Record
// of a backend. The engine hands it URLs in their canonical form (as
// written when they have none). A record whose write fails counts all the
// same: the error is logged and kept by the writer to fail the run
// (Finish), so that an incomplete log is never taken for a complete one.
func (s *SkipLog) Record(rec *skiplog.Record) bool {
	first, err := s.w.Record(rec)
	if err != nil && rec != nil {
		// The first lost record is said at once; the rest are counted
		// (the summary says how many), logged at debug level.
		attrs := []any{"url", rec.URL, "reason", string(rec.Reason), "error", err}
		if s.w.Summary().Failed == 1 {
			s.log.Error("skip log: record not written; the skip log is incomplete and the crawl will fail (further losses are counted)", attrs...)
		} else {
			s.log.Debug("skip log: record not written", attrs...)
		}
	}
	return first
}

// Finish completes a result with what the skip log wrote, and returns its
// write error.
func (s *SkipLog) Finish(res *Result) error {
	res.Skipped = s.w.Summary()
	if err := s.w.Err(); err != nil {
		return fmt.Errorf("backend: skip log: %w", err)
	}
	return nil
}

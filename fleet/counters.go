package fleet

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/skiplog"
)

// robotsCounter prefixes the crawl-wide counters of robots.txt outcomes.
const robotsCounter = "robots:"

// counterFlushEvery is how often a process adds its counts to the
// crawl's.
const counterFlushEvery = 250 * time.Millisecond

// fleetCounters adds this process's counts to the crawl-wide counters in
// Redis. An event is written at once, by the worker that handles the
// request and before its lease ends, so that when the crawl is exhausted
// every process's counts are in and the last process to stop reports them
// all. An event that cannot be written (Redis unreachable) is queued in
// memory and written by a background goroutine, and at the end of the run.
type fleetCounters struct {
	c  *redisstore.Counters
	fl *fleet

	mu      sync.Mutex
	pending []counterEvent
}

type counterEvent struct {
	kind      byte // 'f' fetched, 's' skipped, 'n' named
	authority string
	status    int
	n         int64  // bytes, or the named counter's increment
	name      string // the skip reason, or the named counter
}

func newFleetCounters(c *redisstore.Counters, fl *fleet) *fleetCounters {
	return &fleetCounters{c: c, fl: fl}
}

func (fc *fleetCounters) add(e counterEvent) {
	fc.mu.Lock()
	queued := len(fc.pending) > 0
	fc.mu.Unlock()
	if !queued && fc.write(context.Background(), e) == nil {
		return
	}
	fc.mu.Lock()
	fc.pending = append(fc.pending, e)
	fc.mu.Unlock()
}

func (fc *fleetCounters) write(ctx context.Context, e counterEvent) error {
	switch e.kind {
	case 'f':
		return fc.c.Fetched(ctx, e.authority, e.status, e.n)
	case 's':
		return fc.c.Skipped(ctx, e.authority, e.name)
	default:
		return fc.c.Add(ctx, e.name, e.n)
	}
}

func (fc *fleetCounters) fetched(authority string, status, bytes int) {
	fc.add(counterEvent{kind: 'f', authority: authority, status: status, n: int64(bytes)})
}

func (fc *fleetCounters) skipped(authority string, reason skiplog.Reason) {
	fc.add(counterEvent{kind: 's', authority: authority, name: string(reason)})
}

func (fc *fleetCounters) named(name string, n int64) {
	fc.add(counterEvent{kind: 'n', name: name, n: n})
}

// run writes the queued events every counterFlushEvery until ctx ends.
func (fc *fleetCounters) run(ctx context.Context) {
	defer fc.fl.bg.Done()
	t := time.NewTicker(counterFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fc.flush(ctx)
	}
}

// flush writes the queued events in order; those it could not write stay
// queued, first.
func (fc *fleetCounters) flush(ctx context.Context) error {
	fc.mu.Lock()
	batch := fc.pending
	fc.pending = nil
	fc.mu.Unlock()
	for i, e := range batch {
		if err := fc.write(ctx, e); err != nil {
			fc.mu.Lock()
			fc.pending = append(batch[i:len(batch):len(batch)], fc.pending...)
			fc.mu.Unlock()
			if !errors.Is(err, redisstore.ErrUnavailable) && ctx.Err() == nil {
				fc.fl.log.Error("crawl-wide counters not updated", "error", err.Error())
			}
			return err
		}
	}
	return nil
}

// flushAll writes what is queued at the end of a run, trying for at most
// d; what is left is logged as lost from the crawl-wide counts (this
// process's own statistics still have it).
func (fc *fleetCounters) flushAll(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for ctx.Err() == nil {
		if fc.flush(ctx) == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	fc.mu.Lock()
	n := len(fc.pending)
	fc.mu.Unlock()
	if n > 0 {
		fc.fl.log.Error("redis unavailable at the end of the run: crawl-wide counts miss this process's last events", "events", n)
	}
}

package fleet

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/skiplog"
)

// robotsCounter prefixes the crawl-wide counters of robots.txt outcomes.
const robotsCounter = "robots:"

// counterFlushEvery is how often a process adds its counts to the
// crawl's.
const counterFlushEvery = 250 * time.Millisecond

// heldMaxAge is how long a page's count waits for its lease to end before
// the background flusher writes it alone. Every lease ends through the
// fleet's frontier, which takes the count first; the age only bounds what
// a lease end that never comes would keep out of the crawl's counts.
const heldMaxAge = 10 * time.Second

// fleetCounters adds this process's counts to the crawl-wide counters in
// Redis. Every count is in Redis before the lease of the request it came
// from ends, so that when the crawl is exhausted every process's counts
// are in and the last process to stop reports them all. A fetched page's
// count is held until its lease ends and written by the same script call
// (fleetFrontier.Complete, redisfrontier.Frontier.CompleteCounting), or
// just before the call when that call cannot carry it (Done, Retry); the
// other events are written at once, by the worker that has them, on the
// run's context (fleet.countContext). An event that cannot be written
// (Redis unreachable, or the run cancelled while it waited) is queued in
// memory and written by a background goroutine, and at the end of the
// run.
type fleetCounters struct {
	c  *redisstore.Counters
	fl *fleet

	mu      sync.Mutex
	pending []counterEvent
	held    map[uint64]heldEvent // Fetched events by their request's Seq (lease id)
}

// heldEvent is a fetched page's count waiting for the page's lease end.
type heldEvent struct {
	counterEvent
	since time.Time
}

type counterEvent struct {
	kind      byte // 'f' fetched, 's' skipped, 'n' named
	authority string
	status    int
	n         int64  // bytes, or the named counter's increment
	name      string // the skip reason, or the named counter
}

func newFleetCounters(c *redisstore.Counters, fl *fleet) *fleetCounters {
	return &fleetCounters{c: c, fl: fl, held: make(map[uint64]heldEvent)}
}

func (fc *fleetCounters) add(e counterEvent) {
	fc.mu.Lock()
	queued := len(fc.pending) > 0
	fc.mu.Unlock()
	if !queued {
		ctx, cancel := fc.fl.countContext()
		err := fc.write(ctx, e)
		cancel()
		if err == nil {
			return
		}
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

// fetched counts a downloaded response. One to a request leased from the
// crawl's frontier is held for the request's lease end (take); any other
// is written at once.
func (fc *fleetCounters) fetched(req *frontier.Request, authority string, status, bytes int) {
	e := counterEvent{kind: 'f', authority: authority, status: status, n: int64(bytes)}
	if req == nil || req.Seq == 0 {
		fc.add(e)
		return
	}
	fc.mu.Lock()
	if old, ok := fc.held[req.Seq]; ok {
		// A second response to one lease (not something heed does):
		// the first is written, not lost.
		defer fc.add(old.counterEvent)
	}
	fc.held[req.Seq] = heldEvent{counterEvent: e, since: time.Now()}
	fc.mu.Unlock()
}

// take returns, and forgets, the count held for req's lease end: the
// updates for the script that ends the lease to apply, or nil when none is
// held. The caller writes the returned event with add if the script does
// not apply its updates.
func (fc *fleetCounters) take(req *frontier.Request) (counterEvent, *redisstore.Increments) {
	fc.mu.Lock()
	h, ok := fc.held[req.Seq]
	delete(fc.held, req.Seq)
	fc.mu.Unlock()
	if !ok {
		return counterEvent{}, nil
	}
	inc := &redisstore.Increments{}
	fc.c.AddFetched(inc, h.authority, h.status, h.n)
	return h.counterEvent, inc
}

// release writes the count held for req's lease end, if any, before a
// call that ends the lease without carrying it.
func (fc *fleetCounters) release(req *frontier.Request) {
	if e, inc := fc.take(req); inc != nil {
		fc.add(e)
	}
}

// unhold moves to the queue the held counts older than maxAge (all of
// them for 0), so that flush writes them.
func (fc *fleetCounters) unhold(maxAge time.Duration) {
	now := time.Now()
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for seq, h := range fc.held {
		if now.Sub(h.since) >= maxAge {
			fc.pending = append(fc.pending, h.counterEvent)
			delete(fc.held, seq)
		}
	}
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
		fc.unhold(heldMaxAge)
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
	fc.unhold(0)
	ctx, cancel := fc.fl.endContext(d)
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

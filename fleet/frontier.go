package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/politeness/redispacer"
	"github.com/heedcrawl/heed/redisstore"
)

// fleetFrontier is the Redis frontier as a crawl process uses it: a call
// that fails because Redis is unreachable is made again, after a wait,
// instead of failing the request it carries, so that a Redis outage or
// restart costs time, not URLs. Only a stopping process gives up, after
// one more retry budget.
type fleetFrontier struct {
	*redisfrontier.Frontier
	fl *fleet
}

// retry runs call until it does not fail for want of Redis, the process
// stops (then giving up after one more failed call), or ctx ends.
func (w *fleetFrontier) retry(ctx context.Context, op string, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if !errors.Is(err, redisstore.ErrUnavailable) {
			return err
		}
		if w.fl.isStopping() && attempt > 0 {
			return err
		}
		if werr := w.fl.unavailable(ctx, op, attempt, err); werr != nil {
			return err
		}
	}
}

// Push queues req, waiting for Redis as long as the process runs: a
// discovered link is never turned into a skip for want of Redis.
func (w *fleetFrontier) Push(ctx context.Context, req *frontier.Request) (frontier.PushResult, error) {
	var res frontier.PushResult
	err := w.retry(ctx, "push", func() error {
		var err error
		res, err = w.Frontier.Push(ctx, req)
		return err
	})
	if errors.Is(err, redisstore.ErrUnavailable) {
		return frontier.Rejected, fmt.Errorf("%w: redis unavailable: %w", backend.ErrNotQueued, err)
	}
	return res, err
}

// PushBatch queues a page's links in one round trip where it can (see
// redisfrontier.Frontier.PushBatch), waiting for Redis as Push does: the
// requests that failed for want of Redis are pushed again, and given up
// only by a stopping process.
func (w *fleetFrontier) PushBatch(ctx context.Context, reqs []*frontier.Request) ([]frontier.PushResult, []error) {
	res, errs := w.Frontier.PushBatch(ctx, reqs)
	for attempt := 0; ; attempt++ {
		var again []int
		for i, err := range errs {
			if errors.Is(err, redisstore.ErrUnavailable) {
				again = append(again, i)
			}
		}
		if len(again) == 0 {
			return res, errs
		}
		if (w.fl.isStopping() && attempt > 0) || w.fl.unavailable(ctx, "push", attempt, errs[again[0]]) != nil {
			for _, i := range again {
				res[i], errs[i] = frontier.Rejected, fmt.Errorf("%w: redis unavailable: %w", backend.ErrNotQueued, errs[i])
			}
			return res, errs
		}
		sub := make([]*frontier.Request, len(again))
		for k, i := range again {
			sub[k] = reqs[i]
		}
		r2, e2 := w.Frontier.PushBatch(ctx, sub)
		for k, i := range again {
			res[i], errs[i] = r2[k], e2[k]
		}
	}
}

// Complete queues a page's links, counts the page in the crawl-wide
// counters and ends its lease in one round trip (see
// redisfrontier.Frontier.CompleteCounting). When Redis cannot be reached,
// the links not queued are pushed again, the count written and the lease
// ended as PushBatch, the counters and Done do, waiting for Redis; the
// lease is renewed meanwhile.
func (w *fleetFrontier) Complete(ctx context.Context, req *frontier.Request, links []*frontier.Request) ([]frontier.PushResult, []error, error) {
	e, inc := w.fl.counters.take(req)
	res, errs, counted, err := w.Frontier.CompleteCounting(ctx, req, links, inc)
	if inc != nil && !counted {
		w.fl.counters.add(e)
	}
	if !errors.Is(err, redisstore.ErrUnavailable) {
		return res, errs, err
	}
	var again []int
	for i, e := range errs {
		if errors.Is(e, redisstore.ErrUnavailable) {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		sub := make([]*frontier.Request, len(again))
		for k, i := range again {
			sub[k] = links[i]
		}
		r2, e2 := w.PushBatch(ctx, sub)
		for k, i := range again {
			res[i], errs[i] = r2[k], e2[k]
		}
	}
	return res, errs, w.Done(ctx, req)
}

// Next waits for Redis as long as ctx lasts: a worker does not stop
// because Redis is restarting.
func (w *fleetFrontier) Next(ctx context.Context) (*frontier.Request, error) {
	for attempt := 0; ; attempt++ {
		req, err := w.Frontier.Next(ctx)
		if !errors.Is(err, redisstore.ErrUnavailable) {
			return req, err
		}
		if werr := w.fl.unavailable(ctx, "next", attempt, err); werr != nil {
			return nil, werr
		}
	}
}

// Done ends the lease, waiting for Redis; the lease is renewed meanwhile.
// The page's count, if any, is written first.
func (w *fleetFrontier) Done(ctx context.Context, req *frontier.Request) error {
	w.fl.counters.release(req)
	return w.retry(ctx, "done", func() error { return w.Frontier.Done(ctx, req) })
}

// Retry puts the request back, waiting for Redis. A lease that expired
// meanwhile was put back by the frontier already: that is logged, not an
// error, since another process will fetch the request.
func (w *fleetFrontier) Retry(ctx context.Context, req *frontier.Request, notBefore time.Time) error {
	w.fl.counters.release(req)
	err := w.retry(ctx, "retry", func() error { return w.Frontier.Retry(ctx, req, notBefore) })
	if errors.Is(err, redisfrontier.ErrLeaseLost) {
		w.fl.log.Warn("lease lost while the request was out; it is back in the queue for another process", "url", req.URL)
		return nil
	}
	return err
}

// Stats answers at once from the crawl's queue sizes, read in the
// background: Queued and Leased only. The crawler's statistics call it
// under their lock, so it must not wait for Redis, and the frontier's own
// Stats reads every authority.
func (w *fleetFrontier) Stats() frontier.Stats {
	q, l := w.fl.sizes()
	return frontier.Stats{Queued: q, Leased: l}
}

// fleetPacer is the fleet-wide pacer as the politeness stage and the
// robots stage use it: Redis being unreachable defers a request instead of
// failing it, and a Crawl-delay is recorded whatever it takes.
type fleetPacer struct {
	*redispacer.Pacer
	fl *fleet
}

// TryAcquire books a start, waiting for Redis on ctx (the request's);
// when Redis cannot be reached, it asks for a retry in a second, so that
// the request is deferred, not skip-logged as a fetch error. A start Redis
// booked all the same (a lost reply) is freed by the pacer, or frees
// itself after the slot timeout if Redis stays out of reach (the pacer
// logs that).
func (p fleetPacer) TryAcquire(ctx context.Context, authority string) (bool, time.Time, error) {
	ok, at, err := p.Pacer.TryAcquire(ctx, authority)
	if errors.Is(err, redisstore.ErrUnavailable) {
		p.fl.log.Warn("redis unavailable: request deferred", "authority", authority, "error", err.Error())
		return false, time.Now().Add(time.Second), nil
	}
	return ok, at, err
}

// SetCrawlDelay records the Crawl-delay for the fleet, waiting for Redis
// while the process runs and ctx lasts: a Crawl-delay lost would let the
// fleet pace the authority by the floor alone (until another process
// reads the authority's robots.txt record and sets it again).
func (p fleetPacer) SetCrawlDelay(ctx context.Context, authority string, d time.Duration) error {
	for attempt := 0; ; attempt++ {
		err := p.Pacer.SetCrawlDelay(ctx, authority, d)
		if !errors.Is(err, redisstore.ErrUnavailable) || (p.fl.isStopping() && attempt > 0) {
			return err
		}
		if werr := p.fl.unavailable(ctx, "crawl-delay", attempt, err); werr != nil {
			return err
		}
	}
}

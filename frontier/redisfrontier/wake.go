package redisfrontier

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// Blocked Next calls of one process wait here, not on Redis. They are woken
// one at a time (a waiter that takes a request wakes the next one if more
// is ready, as the in-memory frontier does), all at once when the crawl may
// be exhausted, and by one timer armed for the earliest time something may
// become ready, never later than the poll interval: a missed message costs
// at most one poll interval, and an idle process asks Redis about once per
// interval, whatever its number of workers.
//
// Wake-ups come from this process's own Push, Done and Retry, and from the
// other processes through the "wake" pub/sub channel, which the scripts
// publish to when an authority becomes ready or the crawl may be over.

// wakeup is the waiters of one Frontier.
type wakeup struct {
	mu      sync.Mutex
	gen     uint64    // changes on every signal
	waiters list.List // of chan struct{}, capacity 1, oldest first
	timer   *time.Timer
	timerAt time.Time
}

// generation returns the signal count; a waiter reads it before asking
// Redis and waits only if no signal came meanwhile.
func (w *wakeup) generation() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

// one wakes the longest-waiting waiter.
func (w *wakeup) one() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	if e := w.waiters.Front(); e != nil {
		w.waiters.Remove(e)
		e.Value.(chan struct{}) <- struct{}{}
	}
}

// all wakes every waiter.
func (w *wakeup) all() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	for e := w.waiters.Front(); e != nil; e = w.waiters.Front() {
		w.waiters.Remove(e)
		e.Value.(chan struct{}) <- struct{}{}
	}
}

// armLocked makes the timer wake one waiter no later than at.
func (w *wakeup) armLocked(at time.Time) {
	if w.timer != nil && !at.Before(w.timerAt) {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timerAt = at
	var t *time.Timer
	t = time.AfterFunc(time.Until(at), func() {
		w.mu.Lock()
		if w.timer == t {
			w.timer = nil
		}
		w.mu.Unlock()
		w.one()
	})
	w.timer = t
}

func (w *wakeup) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}

// wait blocks until a signal, the time at, ctx's end or closed. It returns
// at once if a signal came since gen was read.
func (w *wakeup) wait(ctx context.Context, gen uint64, at time.Time, closed <-chan struct{}) error {
	w.mu.Lock()
	if w.gen != gen {
		w.mu.Unlock()
		return nil
	}
	ch := make(chan struct{}, 1)
	e := w.waiters.PushBack(ch)
	w.armLocked(at)
	w.mu.Unlock()

	select {
	case <-ch:
		return nil
	case <-closed:
		w.leave(e, ch)
		return frontier.ErrClosed
	case <-ctx.Done():
		w.leave(e, ch)
		return ctx.Err()
	}
}

// leave takes a waiter that gives up out of the list; if it was signalled
// meanwhile, the signal goes to another waiter.
func (w *wakeup) leave(e *list.Element, ch chan struct{}) {
	w.mu.Lock()
	select {
	case <-ch:
		w.mu.Unlock()
		w.one()
		return
	default:
	}
	w.waiters.Remove(e)
	w.mu.Unlock()
}

// subscribe relays the wake channel's messages to the waiters until ctx
// ends. After a lost connection it resubscribes with backoff and wakes
// every waiter, since messages may have been missed meanwhile.
func (f *Frontier) subscribe(ctx context.Context, ps *redis.PubSub) {
	defer f.bg.Done()
	wait := redisstore.RetryFirst
	lost := false
	for {
		msg, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if !lost && !errors.Is(err, redis.ErrClosed) {
				f.s.Logger().Debug("redisfrontier: wake-up subscription lost; Next polls meanwhile", "error", err.Error())
			}
			lost = true
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(2*wait, redisstore.RetryMax)
			continue
		}
		wait = redisstore.RetryFirst
		switch m := msg.(type) {
		case *redis.Subscription:
			if lost {
				lost = false
				f.wake.all()
			}
		case *redis.Message:
			if m.Payload == "x" {
				f.wake.all()
			} else {
				f.wake.one()
			}
		}
	}
}

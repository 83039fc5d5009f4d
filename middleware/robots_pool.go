package middleware

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultRobotsFetchers is how many robots.txt fetches the robots stage
// runs at once unless [RobotsPolicy].Fetchers says otherwise.
const DefaultRobotsFetchers = 32

// errRobotsClosed answers a request that needs a robots.txt fetch after
// the stage was closed.
var errRobotsClosed = errors.New("robots: the stage is closed")

// pendingFor is how long a request waits in the frontier while its
// authority's robots.txt has been fetching for elapsed: a quarter of that,
// between pendingWait and a second. A request comes back soon after a
// quick fetch ends, and the requests of a host that takes its time to
// answer (or never does) cost a worker a moment a second at most.
func pendingFor(elapsed time.Duration) time.Duration {
	return min(max(elapsed/4, pendingWait), time.Second)
}

// robotsPool runs the robots.txt fetches of the chain stage apart from the
// workers that asked for them: at most size at once, first fetches of an
// authority before retries of an unreachable one, each kind in the order
// asked. A fetch waiting for a place holds no goroutine.
type robotsPool struct {
	size int

	mu      sync.Mutex
	running int
	first   []poolTask
	retries []poolTask
	cancels map[*poolTask]context.CancelFunc
	closed  bool
	wg      sync.WaitGroup
}

type poolTask struct {
	ctx context.Context
	run func(ctx context.Context)
}

func newRobotsPool(size int) *robotsPool {
	return &robotsPool{size: size, cancels: make(map[*poolTask]context.CancelFunc)}
}

// submit queues run, to be called with a context that keeps ctx's values
// but not its cancellation (a stopping crawl lets fetches in flight end)
// and is cancelled by close. first puts it ahead of the retries. It
// reports false after close.
func (p *robotsPool) submit(ctx context.Context, first bool, run func(context.Context)) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	t := poolTask{ctx: context.WithoutCancel(ctx), run: run}
	if first {
		p.first = append(p.first, t)
	} else {
		p.retries = append(p.retries, t)
	}
	p.startLocked()
	return true
}

// startLocked starts queued tasks while there is room; p.mu is held.
func (p *robotsPool) startLocked() {
	for p.running < p.size && !p.closed {
		var t poolTask
		switch {
		case len(p.first) > 0:
			t, p.first = p.first[0], p.first[1:]
		case len(p.retries) > 0:
			t, p.retries = p.retries[0], p.retries[1:]
		default:
			return
		}
		p.running++
		p.wg.Add(1)
		ctx, cancel := context.WithCancel(t.ctx)
		key := &t
		p.cancels[key] = cancel
		go func() {
			defer p.wg.Done()
			t.run(ctx)
			cancel()
			p.mu.Lock()
			delete(p.cancels, key)
			p.running--
			p.startLocked()
			p.mu.Unlock()
		}()
	}
}

// close cancels the fetches in flight, drops the queued ones (their
// callers' requests stay deferred in the frontier) and waits for the
// running ones to return.
func (p *robotsPool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.wg.Wait()
		return
	}
	p.closed = true
	p.first, p.retries = nil, nil
	for _, cancel := range p.cancels {
		cancel()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Close stops the stage's background robots.txt fetches: those in flight
// are cancelled and waited for, those not started are dropped. After
// Close no callback of the policy is called again, and a request that
// needs a fetch gets an error. A crawl closes its robots stage when its
// workers are done, before it closes what the callbacks write to.
func (r *Robots) Close() {
	r.pool.close()
	r.mu.Lock()
	clear(r.fetching)
	r.mu.Unlock()
}

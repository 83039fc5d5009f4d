package durable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/internal/sched"
)

// Frontier is a frontier.Frontier whose state lives in a Pebble store on
// disk. It is safe for concurrent use. See the package doc for what is
// durable when, and what it keeps in memory.
//
// Next hands out the *Request that was pushed while it is in the
// read-ahead, and otherwise one decoded from disk; Done and Retry match
// leases by Seq and URL, so either works.
type Frontier struct {
	cfg  frontier.Config
	db   *pebble.DB
	path string

	mu     sync.Mutex
	closed bool
	broken error // the first store failure; every later call returns it
	ctr    counters
	auths  map[string]*authority // authorities with requests queued or leased
	leases map[uint64]lease      // by Seq
	// pending holds the fingerprints of pushes between their seen-set
	// lookup and their commit, so that a concurrent push of the same URL
	// is a Duplicate.
	pending   map[frontier.Fingerprint]struct{}
	queued    int
	admitting int // Push calls inside the admission function

	// ops counts calls that use the store without holding mu (waiting for
	// an fsync, iterating for Drain or ForEachMeta); Close waits for them.
	ops sync.WaitGroup

	// sched holds the ready and waiting heaps, the leases and holds per
	// authority, and the blocked Next calls: the Memory frontier's
	// scheduler, so that both hand out requests alike.
	sched *sched.Scheduler[*authority]
}

// lease is a request handed out by Next: its URL and its authority.
type lease struct {
	url string
	a   *authority
}

var _ frontier.Frontier = (*Frontier)(nil)

// Open opens the frontier state in the directory path, creating it if it
// does not exist, configured by opts like any frontier (frontier.WithGate,
// WithLeasesPerAuthority, WithOrder, WithAdmit, WithClock...).
//
// Requests that were leased when the state was last closed or its process
// died are put back at the head of their authorities' queues. Holds from
// Retry, the seen set, Seq and the counts are as they were. The order of a
// state is fixed when it is created: Open with another WithOrder returns
// an *OrderError. A directory written by an unknown format version, or not
// by this package, gives a *FormatError. A state is used by one process at
// a time: Open fails while another has it open.
func Open(path string, opts ...frontier.Option) (*Frontier, error) {
	cfg := frontier.NewConfig(opts...)
	db, err := openStore(path, false)
	if err != nil {
		return nil, err
	}
	stored, err := checkFormat(db, path, cfg.Order, false)
	if err == nil && stored != cfg.Order {
		err = &OrderError{Path: path, Stored: stored, Got: cfg.Order}
	}
	f := &Frontier{
		cfg:     cfg,
		db:      db,
		path:    path,
		auths:   make(map[string]*authority),
		leases:  make(map[uint64]lease),
		pending: make(map[frontier.Fingerprint]struct{}),
	}
	f.sched = sched.New[*authority](sched.Params{
		Lock:         &f.mu,
		Gate:         cfg.Gate,
		Leases:       cfg.LeasesPerAuthority,
		DepthFirst:   cfg.Order == frontier.DepthFirst,
		Now:          cfg.Now,
		AfterFunc:    cfg.AfterFunc,
		Usable:       f.usable,
		Exhausted:    f.exhausted,
		ErrExhausted: frontier.ErrExhausted,
	})
	if err == nil {
		err = f.load()
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return f, nil
}

// readAhead returns how many queue entries each authority keeps in memory:
// up to 16, fewer when there are many authorities, so that the read-ahead
// of all of them stays near 64k requests.
func (f *Frontier) readAhead() int {
	return max(1, min(16, 65536/max(1, len(f.auths))))
}

// fill reads a's first queue entries from disk into its read-ahead.
func (f *Frontier) fill(a *authority) error {
	p := queuePrefix(a.id)
	lower := p
	if a.floor != nil {
		// Every key below the last one handed out is deleted: start there
		// rather than step over the tombstones.
		lower = a.floor
	}
	it, err := f.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upperBound(p)})
	if err != nil {
		return err
	}
	limit := f.readAhead()
	a.heads = a.heads[:0]
	for ok := it.First(); ok && len(a.heads) < limit; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		r, err := decodeRequest(v)
		if err != nil {
			it.Close()
			return fmt.Errorf("%w (key %x)", err, it.Key())
		}
		a.heads = append(a.heads, entry{key: slices.Clone(it.Key()), req: r})
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	if len(a.heads) == 0 {
		return fmt.Errorf("durable: %s: authority %s counts %d queued requests but none is stored", f.path, a.Name, a.queued)
	}
	a.noteHead()
	return nil
}

// usable returns the error a call gets when the frontier cannot work.
// f.mu is held.
func (f *Frontier) usable() error {
	if f.closed {
		return frontier.ErrClosed
	}
	return f.broken
}

// fail records a store failure: the frontier stops, and waiters are told.
// f.mu is held.
func (f *Frontier) fail(err error) error {
	if f.broken == nil {
		f.broken = fmt.Errorf("durable: %s: %w", f.path, err)
		f.sched.Broadcast()
	}
	return f.broken
}

// apply commits b without waiting for fsync; f.mu is held.
func (f *Frontier) apply(b *pebble.Batch) error {
	b.Set([]byte{prefixCounters}, f.ctr.encode(), nil)
	err := b.Commit(pebble.NoSync)
	b.Close()
	if err != nil {
		return f.fail(err)
	}
	return nil
}

// authorityPrefix returns the authority a canonical URL starts with.
func authorityPrefix(canon string) string {
	i := strings.Index(canon, "://") + 3
	j := strings.IndexByte(canon[i:], '/')
	if j < 0 {
		return canon
	}
	return canon[:i+j]
}

// Next leases the best request whose authority is ready, with the Memory
// frontier's rules: the authority is not on hold from Retry, has a free
// lease, and the Gate's ReadyAt for it is not after now; among ready
// authorities the one whose head request has the highest priority, then
// the lowest depth (highest for DepthFirst), and among equals the one
// served longest ago. When none is ready, Next sleeps until the earliest
// time one may be, or until Push, Done, Retry or Close. It returns
// ErrExhausted when nothing is queued, leased or being admitted, ErrClosed
// after Close, the store's error after a store failure, or the context's
// error.
//
// The lease is written to disk (without waiting for fsync) before Next
// returns: if the process dies before Done or Retry, the next Open puts the
// request back at the head of its queue.
func (f *Frontier) Next(ctx context.Context) (*frontier.Request, error) {
	var req *frontier.Request
	f.mu.Lock()
	err := f.sched.Next(ctx, func() (bool, error) {
		var err error
		req, err = f.take()
		return req != nil, err
	})
	if err != nil {
		return nil, err
	}
	return req, nil
}

// exhausted reports whether nothing is queued, leased or being admitted.
func (f *Frontier) exhausted() bool {
	return f.queued == 0 && len(f.leases) == 0 && f.admitting == 0
}

// take leases the best ready request, or returns nil.
func (f *Frontier) take() (*frontier.Request, error) {
	a, ok := f.sched.Take()
	if !ok {
		return nil, nil
	}
	return f.lease(a)
}

// lease hands out a's head request: on disk, its queue entry becomes a
// lease in one write.
func (f *Frontier) lease(a *authority) (*frontier.Request, error) {
	e := a.heads[0]
	b := f.db.NewBatch()
	b.Delete(e.key, nil)
	b.Set(leaseKey(e.req.Seq), leaseValue(a.id, e.req), nil)
	rec := a.record()
	rec.queued--
	rec.hold = time.Time{}
	b.Set(authorityKey(a.id), rec.encode(), nil)
	if err := f.apply(b); err != nil {
		return nil, err
	}
	a.popHead()
	a.floor = e.key
	a.queued--
	f.queued--
	f.leases[e.req.Seq] = lease{url: e.req.URL, a: a}
	if len(a.heads) == 0 && a.queued > 0 {
		if err := f.fill(a); err != nil {
			return nil, f.fail(err)
		}
	}
	f.sched.Served(a)
	return e.req, nil
}

// Done ends the lease of req (matched by Seq and URL) and deletes it from
// disk, without waiting for fsync: after a crash soon after, the request
// may be handed out once more. It returns an error wrapping
// frontier.ErrNotLeased if req is not leased, and ErrClosed after Close.
func (f *Frontier) Done(_ context.Context, req *frontier.Request) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, err := f.leased(req)
	if err != nil {
		return err
	}
	b := f.db.NewBatch()
	b.Delete(leaseKey(req.Seq), nil)
	if a.queued == 0 && a.Leased == 1 {
		b.Delete(authorityKey(a.id), nil)
	}
	if err := f.apply(b); err != nil {
		return err
	}
	delete(f.leases, req.Seq)
	if f.sched.Release(a) {
		delete(f.auths, a.Name)
	}
	return nil
}

// Retry ends the lease of req and queues req (as passed, so that a changed
// Attempt or Meta is kept) at the head of its authority's queue. The
// authority is not handed out before notBefore; a zero or past notBefore
// adds no wait. Several Retries of one authority keep the latest hold. The
// hold is stored with the authority, so it outlasts a restart.
func (f *Frontier) Retry(_ context.Context, req *frontier.Request, notBefore time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, err := f.leased(req)
	if err != nil {
		return err
	}
	hold := a.Hold
	if notBefore.After(hold) {
		hold = notBefore
	}
	f.ctr.front++
	key := frontKey(a.id, f.ctr.front)
	b := f.db.NewBatch()
	b.Delete(leaseKey(req.Seq), nil)
	b.Set(key, encodeRequest(nil, req), nil)
	rec := a.record()
	rec.queued++
	rec.hold = hold
	b.Set(authorityKey(a.id), rec.encode(), nil)
	if err := f.apply(b); err != nil {
		return err
	}
	delete(f.leases, req.Seq)
	a.noteKey(entry{key: key, req: req}, f.readAhead())
	a.queued++
	f.queued++
	f.sched.Requeue(a, hold)
	return nil
}

// leased returns the authority of req's lease, or why there is none.
func (f *Frontier) leased(req *frontier.Request) (*authority, error) {
	if err := f.usable(); err != nil {
		return nil, err
	}
	if req == nil {
		return nil, fmt.Errorf("%w: nil request", frontier.ErrNotLeased)
	}
	l, ok := f.leases[req.Seq]
	if !ok || l.url != req.URL {
		return nil, fmt.Errorf("%w: %s (seq %d)", frontier.ErrNotLeased, req.URL, req.Seq)
	}
	return l.a, nil
}

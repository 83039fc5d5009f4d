package frontier

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier/internal/sched"
)

// ErrNotLeased is wrapped by the error Done and Retry return for a request
// that is not leased: never handed out by Next, or already Done or Retried.
var ErrNotLeased = errors.New("frontier: request is not leased")

// Memory is heed's default Frontier: everything in memory, nothing survives
// the process. It is safe for concurrent use.
//
// Each authority has a queue ordered by the request key (see [Order.Less]);
// a Retried request goes to the head of its authority's queue. Authorities
// with queued requests and a free lease are kept in two heaps: a ready heap
// ordered by their head requests (priority, then depth, then round-robin)
// and a waiting heap ordered by the time they become ready. Next pops the
// best ready authority, re-asking the Gate (whose answer may have moved
// later since it was last asked), and otherwise sleeps until the earliest
// waiting time or until Push, Done, Retry or Close change the picture. Each
// operation is O(log n) in the number of authorities and of the authority's
// queued requests; nothing scans all authorities except Drain and Stats.
//
// A queued request is kept compact: a 24-byte entry in its
// authority's queue, its URL's text after the authority, its referrer
// shared with the other links of its page, and 8 bytes of its fingerprint
// in the seen set: about 62 bytes a URL with a million short URLs queued
// on 1,000 authorities (BenchmarkQueuedMemory: 59 MiB of heap). A request
// with more than URL, depth, priority and referrer set is kept whole.
// Once done, a URL costs only its slot in the seen set, 11 to 21 bytes
// with the table's free slots (17 at a million URLs), for the life of the
// Memory. Idle authorities (nothing queued or leased) are forgotten.
//
// The seen set keeps 64 bits folded from each 128-bit fingerprint, so two
// URLs may be taken for one: for a crawl of n URLs with probability about
// n²/2⁶⁵, 2.7e-8 for a million URLs and 2.7e-4 for a hundred million (see
// seenSet). A crawl that cannot take that chance uses a durable or shared
// frontier, which keep the whole fingerprint.
//
// Next hands out a Request built from the compact form (the pushed one
// when it was kept whole), equal in every field to what was pushed; Done
// and Retry match leases by Seq and URL, so a copy works too.
type Memory struct {
	cfg Config

	mu      sync.Mutex
	closed  bool
	seq     uint64 // last Seq assigned
	seen    seenSet
	auths   map[string]*authority // authorities with requests queued or leased
	leases  map[uint64]lease      // by Seq
	queued  int
	dups    int
	rejects int
	// admitting counts Push calls inside the admission function: they may
	// still add work, so the frontier is not exhausted meanwhile.
	admitting int

	// sched holds the ready and waiting heaps, the leases and holds per
	// authority, and the blocked Next calls.
	sched *sched.Scheduler[*authority]
	// store holds what the authorities' compact queues share: the
	// referrers and the requests kept whole.
	store store
}

// lease is a request handed out by Next, with its authority.
type lease struct {
	req *Request
	a   *authority
}

var _ Frontier = (*Memory)(nil)

// NewMemory returns an empty in-memory frontier configured by opts.
func NewMemory(opts ...Option) *Memory {
	m := &Memory{
		cfg:    NewConfig(opts...),
		auths:  make(map[string]*authority),
		leases: make(map[uint64]lease),
	}
	m.sched = sched.New[*authority](schedParams(&m.mu, m.cfg, m.usable, m.exhausted))
	m.store.order = m.cfg.Order
	return m
}

// schedParams returns the scheduler's parameters for a frontier with the
// given lock, configuration and state checks.
func schedParams(mu sync.Locker, cfg Config, usable func() error, exhausted func() bool) sched.Params {
	return sched.Params{
		Lock:         mu,
		Gate:         cfg.Gate,
		Leases:       cfg.LeasesPerAuthority,
		DepthFirst:   cfg.Order == DepthFirst,
		Now:          cfg.Now,
		AfterFunc:    cfg.AfterFunc,
		Usable:       usable,
		Exhausted:    exhausted,
		ErrExhausted: ErrExhausted,
	}
}

// usable returns ErrClosed after Close.
func (m *Memory) usable() error {
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Push canonicalises req.URL and sets it to the canonical form, drops the
// request as a Duplicate if its fingerprint was seen, asks the admission
// function, and queues it with the next Seq. An invalid URL is Rejected with
// its *URLError (and counted, but not marked seen: it has no fingerprint).
// After Close it returns Rejected and ErrClosed. The context is not used:
// Push never blocks.
//
// Push may keep an Added request: the caller must not change it until
// Next hands it out.
func (m *Memory) Push(_ context.Context, req *Request) (PushResult, error) {
	if req == nil {
		return Rejected, errors.New("frontier: Push of a nil request")
	}
	canon, err := Canonicalize(req.URL)
	if err != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed {
			return Rejected, ErrClosed
		}
		m.rejects++
		return Rejected, err
	}
	req.URL = canon
	fp := req.Fingerprint()

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Rejected, ErrClosed
	}
	// Marking the URL seen before asking the admission function makes a
	// concurrent Push of the same URL a Duplicate while it is asked.
	if !m.seen.add(fp) {
		m.dups++
		return Duplicate, nil
	}
	if m.cfg.Admit != nil {
		if err := m.admit(req); err != nil {
			m.rejects++
			if m.exhausted() {
				m.sched.Broadcast()
			}
			return Rejected, err
		}
		if m.closed {
			return Rejected, ErrClosed
		}
	}
	m.seq++
	req.Seq = m.seq
	m.enqueue(req, authorityPrefix(canon))
	return Added, nil
}

// admit asks the admission function without holding m.mu, which it
// releases and takes back (also if the function panics).
func (m *Memory) admit(req *Request) error {
	m.admitting++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.admitting--
	}()
	return m.cfg.Admit(req)
}

// authorityPrefix returns the authority a canonical URL starts with.
func authorityPrefix(canon string) string {
	i := strings.Index(canon, "://") + 3
	return canon[:i+strings.IndexByte(canon[i:], '/')]
}

func (m *Memory) enqueue(req *Request, name string) {
	a := m.auths[name]
	if a == nil {
		// Clone: name points into the first URL, which may be long.
		a = &authority{Slot: sched.Slot{Name: strings.Clone(name)}}
		m.sched.Join(a)
		m.auths[a.Name] = a
	}
	a.push(&m.store, req)
	m.queued++
	m.sched.Add(a) // the new request may be the new head
	m.sched.Kick()
}

// Next leases the best request whose authority is ready: the authority is
// not on hold from Retry, has a free lease, and the Gate's ReadyAt for it is
// not after now. Among ready authorities it takes the one whose head request
// has the highest priority, then the lowest depth (highest for
// DepthFirst), and among equals the one served longest ago. When none is
// ready, Next sleeps until the earliest time one may be, or until Push, Done,
// Retry or Close; it never polls. It returns ErrExhausted when nothing is
// queued, leased or being admitted by a Push, ErrClosed after Close, or the
// context's error.
func (m *Memory) Next(ctx context.Context) (*Request, error) {
	var req *Request
	m.mu.Lock()
	err := m.sched.Next(ctx, func() (bool, error) {
		req = m.take()
		return req != nil, nil
	})
	if err != nil {
		return nil, err
	}
	return req, nil
}

// exhausted reports whether nothing is queued, leased or being admitted.
func (m *Memory) exhausted() bool {
	return m.queued == 0 && len(m.leases) == 0 && m.admitting == 0
}

// take leases the best ready request, or returns nil.
func (m *Memory) take() *Request {
	a, ok := m.sched.Take()
	if !ok {
		return nil
	}
	req := a.pop(&m.store)
	m.queued--
	m.leases[req.Seq] = lease{req: req, a: a}
	m.sched.Served(a)
	return req
}

// Done ends the lease of req (matched by Seq and URL). It returns an error
// wrapping ErrNotLeased if req is not leased, and ErrClosed after Close.
func (m *Memory) Done(_ context.Context, req *Request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, err := m.endLease(req)
	if err != nil {
		return err
	}
	if m.sched.Release(l.a) {
		delete(m.auths, l.a.Name)
	}
	return nil
}

// Retry ends the lease of req and queues req (as passed, so that a changed
// Attempt or Meta is kept) at the head of its authority's queue. The
// authority is not handed out before notBefore; a zero or past notBefore
// adds no wait. Several Retries of one authority keep the latest hold.
func (m *Memory) Retry(_ context.Context, req *Request, notBefore time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, err := m.endLease(req)
	if err != nil {
		return err
	}
	l.a.pushFront(&m.store, req)
	m.queued++
	m.sched.Requeue(l.a, notBefore)
	return nil
}

func (m *Memory) endLease(req *Request) (lease, error) {
	if m.closed {
		return lease{}, ErrClosed
	}
	if req == nil {
		return lease{}, fmt.Errorf("%w: nil request", ErrNotLeased)
	}
	l, ok := m.leases[req.Seq]
	if !ok || l.req.URL != req.URL {
		return lease{}, fmt.Errorf("%w: %s (seq %d)", ErrNotLeased, req.URL, req.Seq)
	}
	delete(m.leases, req.Seq)
	return l, nil
}

// Drain removes every queued request and passes each to fn (nil fn: they
// are dropped), authority by authority in name order, each authority's in
// queue order. Leased requests stay leased. Drained URLs stay seen. fn is
// called without the frontier's lock, after all are removed. Call Drain
// before Close: after Close it returns ErrClosed.
func (m *Memory) Drain(_ context.Context, fn func(*Request)) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	names := make([]string, 0, len(m.auths))
	for name, a := range m.auths {
		if a.Queued() > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]*Request, 0, m.queued)
	for _, name := range names {
		a := m.auths[name]
		for a.Queued() > 0 {
			out = append(out, a.pop(&m.store))
		}
		m.sched.Remove(a)
		if a.Leased == 0 {
			delete(m.auths, name)
		}
	}
	m.queued = 0
	if m.exhausted() {
		m.sched.Broadcast()
	}
	m.mu.Unlock()

	if fn != nil {
		for _, r := range out {
			fn(r)
		}
	}
	return nil
}

// Stats reports the counts; it works after Close too. ByAuthority lists
// the authorities with queued requests.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{
		Queued:      m.queued,
		Leased:      len(m.leases),
		Seen:        m.seen.len(),
		Duplicates:  m.dups,
		Rejected:    m.rejects,
		ByAuthority: make(map[string]int),
	}
	for name, a := range m.auths {
		if n := a.Queued(); n > 0 {
			s.ByAuthority[name] = n
		}
	}
	return s
}

// Close makes every blocked and later Next return ErrClosed, and Push,
// Done, Retry and Drain fail with ErrClosed. Closing twice is harmless.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	m.sched.Close()
	return nil
}

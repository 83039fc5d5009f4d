package redisfrontier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// ErrLeaseLost is returned by Done and Retry for a request whose lease
// expired (its holder did not renew it in time, typically because Redis was
// unreachable for longer than the lease timeout) and was given back to the
// queue: another process may fetch the URL again, and the frontier counts
// it in [Counts.Reclaimed]. It wraps [frontier.ErrNotLeased].
var ErrLeaseLost = fmt.Errorf("%w: the lease expired and its request was given back to the queue", frontier.ErrNotLeased)

// statsTimeout bounds Stats, which has no context.
const statsTimeout = 5 * time.Second

// Frontier is heed's frontier kept in Redis, shared by every process that
// makes one from a Store with the same prefix. It implements
// [frontier.Frontier] and is safe for concurrent use; see the package
// documentation for the model.
type Frontier struct {
	s          *redisstore.Store
	cfg        frontier.Config
	keys       []string // {F}: the frontier's key prefix, KEYS[1] of every script
	order      string   // "b" or "d", for the scripts
	leaseTTL   time.Duration
	poll       time.Duration
	check      func(*frontier.Request) error // WithCheck's; nil if none
	gatePrefix string                        // key prefix of a StoredGate's ready times
	goGate     frontier.Gate                 // a Gate that must be asked in Go; nil if none

	id     string // this Frontier's part of lease and admission tokens
	tokens atomic.Uint64

	mu        sync.Mutex
	closed    bool
	leases    map[uint64]*held // leases this Frontier handed out, by Seq
	lastStats frontier.Stats   // returned by Stats when Redis cannot answer

	done   chan struct{} // closed by Close
	cancel context.CancelFunc
	ps     *redis.PubSub
	wake   wakeup
	bg     sync.WaitGroup
}

// held is a lease handed out by this Frontier.
type held struct {
	token string
	url   string
	lost  bool // renewal found it reclaimed
}

// NewFrontier returns the frontier of the store's crawl, creating it in
// Redis if this is the first process. It subscribes to the crawl's wake-up
// channel and starts renewing leases in the background; Close stops both.
// It fails if Redis cannot be reached within the store's retry budget or
// the crawl was started with another Order.
func NewFrontier(ctx context.Context, s *redisstore.Store, opts ...Option) (*Frontier, error) {
	if s == nil {
		return nil, errors.New("redisfrontier: nil store")
	}
	st := settings{leaseTTL: DefaultLeaseTimeout, poll: DefaultPollInterval}
	for _, o := range opts {
		if o != nil {
			o(&st)
		}
	}
	st.leaseTTL = max(st.leaseTTL, 100*time.Millisecond)
	st.poll = max(st.poll, 10*time.Millisecond)
	cfg := frontier.NewConfig(st.fopts...)
	f := &Frontier{
		s:        s,
		cfg:      cfg,
		keys:     []string{s.Key("f:")},
		order:    "b",
		leaseTTL: st.leaseTTL,
		poll:     st.poll,
		check:    st.check,
		id:       randomID(),
		leases:   make(map[uint64]*held),
		done:     make(chan struct{}),
	}
	if cfg.Order == frontier.DepthFirst {
		f.order = "d"
	}
	if g, ok := cfg.Gate.(redisstore.StoredGate); ok && g.Store() == s {
		f.gatePrefix = g.ReadyKeyPrefix()
	} else {
		f.goGate = cfg.Gate
	}
	if err := f.checkOrder(ctx); err != nil {
		return nil, err
	}
	// The wake-up subscription and the lease renewals live until Close,
	// not as long as ctx, which bounds only the opening.
	bctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.ps = s.Client().Subscribe(bctx, f.keys[0]+"wake")
	f.bg.Add(2)
	go f.subscribe(bctx, f.ps)
	go f.renewLoop(bctx)
	return f, nil
}

// checkOrder records the crawl's Order, or checks it against the one
// recorded by the first process.
func (f *Frontier) checkOrder(ctx context.Context) error {
	want := f.cfg.Order.String()
	var got string
	err := f.s.Do(ctx, "frontier setup", func(ctx context.Context) error {
		key := f.keys[0] + "meta"
		if err := f.s.Client().HSetNX(ctx, key, "order", want).Err(); err != nil {
			return err
		}
		var err error
		got, err = f.s.Client().HGet(ctx, key, "order").Result()
		return err
	})
	if err != nil {
		return fmt.Errorf("redisfrontier: %w", err)
	}
	if got != want {
		return fmt.Errorf("redisfrontier: crawl %q is %s, not %s", f.s.Prefix(), got, want)
	}
	return nil
}

func randomID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newToken returns a token no other lease or admission of the crawl has.
func (f *Frontier) newToken() string {
	return f.id + "." + fmt.Sprint(f.tokens.Add(1))
}

func (f *Frontier) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// run runs a script through the store's retries, on the store's clock.
func (f *Frontier) run(ctx context.Context, op string, sc *redis.Script, args ...any) (any, error) {
	cmd, err := f.s.Run(ctx, op, sc, f.keys, args...)
	if err != nil {
		return nil, err
	}
	return cmd.Result()
}

// Push canonicalises req.URL and sets it to the canonical form, drops the
// request as a Duplicate if its fingerprint is in the crawl's seen set,
// asks the admission function, and queues it with the next Seq of the
// crawl, all as [frontier.Memory] does. Deduplication and queuing are one
// atomic step in Redis, so two processes pushing one URL at once queue it
// once; the admission function runs in between, so in that race both may
// ask it.
//
// If Redis cannot be reached within the store's retry budget, Push returns
// Rejected and an error wrapping [redisstore.ErrUnavailable]: the request was not
// queued and the caller still owns it (it may push it again later).
func (f *Frontier) Push(ctx context.Context, req *frontier.Request) (frontier.PushResult, error) {
	if req == nil {
		return frontier.Rejected, errors.New("frontier: Push of a nil request")
	}
	res, errs := f.PushBatch(ctx, []*frontier.Request{req})
	return res[0], errs[0]
}

// intAt returns r[i] as an int64, or 0.
func intAt(r []any, i int) int64 {
	if i >= len(r) {
		return 0
	}
	n, _ := r[i].(int64)
	return n
}

func strAt(r []any, i int) string {
	if i >= len(r) {
		return ""
	}
	s, _ := r[i].(string)
	return s
}

// Next leases the best request whose authority is ready, across the whole
// crawl, as [frontier.Memory] does: the authority has a free lease, is not
// held by a Retry, and its Gate time is not after now. It first gives back
// to their queues the requests of leases that expired. When nothing is
// ready it waits (see the package documentation) until something may be,
// and returns [frontier.ErrExhausted] when nothing is queued, leased or
// being admitted anywhere in the crawl.
//
// The lease lasts the lease timeout and is renewed in the background until
// Done or Retry. If Redis cannot be reached within the store's retry
// budget, Next returns an error wrapping [redisstore.ErrUnavailable].
func (f *Frontier) Next(ctx context.Context) (*frontier.Request, error) {
	for {
		if f.isClosed() {
			return nil, frontier.ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gen := f.wake.generation()
		req, o, err := f.take(ctx)
		if err != nil {
			if f.isClosed() {
				return nil, frontier.ErrClosed
			}
			return nil, err
		}
		if req != nil {
			if o.readyLeft > 0 {
				f.wake.one() // more is ready than this waiter took
			}
			return req, nil
		}
		if o.exhausted {
			f.wake.all()
			return nil, frontier.ErrExhausted
		}
		at := time.Now().Add(f.poll)
		if o.earliest != 0 {
			if t := redisstore.LocalTime(o.earliest, o.now); t.Before(at) {
				at = t
			}
		}
		if o.readyLeft > 0 {
			at = time.Now() // the script stopped early: ask again at once
		}
		if err := f.wake.wait(ctx, gen, at, f.done); err != nil {
			return nil, err
		}
	}
}

// outlook is what a Next round learnt when it took nothing.
type outlook struct {
	earliest, now int64
	exhausted     bool
	readyLeft     int64
}

// take runs Next's scripts once: it returns a leased request, or what the
// crawl looks like when none could be leased.
func (f *Frontier) take(ctx context.Context) (*frontier.Request, outlook, error) {
	approved := ""
	peek := "0"
	if f.goGate != nil {
		peek = "1"
	}
	for range 64 {
		token := f.newToken()
		res, err := f.run(ctx, "next", nextScript, f.cfg.LeasesPerAuthority, redisstore.Micros(f.leaseTTL),
			token, f.gatePrefix, peek, approved)
		if err != nil {
			return nil, outlook{}, err
		}
		r, _ := res.([]any)
		switch intAt(r, 0) {
		case 1:
			req, err := f.leased(ctx, strAt(r, 1), token)
			if err != nil {
				f.s.Logger().Error("redisfrontier: dropping a request that cannot be read", "error", err.Error())
				continue
			}
			return req, outlook{readyLeft: intAt(r, 3)}, nil
		case 2:
			a := strAt(r, 1)
			t := f.goGate.ReadyAt(a)
			if d := t.Sub(f.cfg.Now()); d > 0 {
				if _, err := f.run(ctx, "next", deferScript, f.cfg.LeasesPerAuthority, a, redisstore.Micros(d)); err != nil {
					return nil, outlook{}, err
				}
				approved = ""
			} else {
				approved = a
			}
		default:
			return nil, outlook{earliest: intAt(r, 1), now: intAt(r, 2), exhausted: intAt(r, 3) == 1, readyLeft: intAt(r, 4)}, nil
		}
	}
	return nil, outlook{readyLeft: 1}, nil
}

// leased decodes a request just leased and records the lease. A request
// that cannot be decoded has its lease ended, so that it is not handed out
// again and again.
func (f *Frontier) leased(ctx context.Context, member, token string) (*frontier.Request, error) {
	req, err := decodeMember(member)
	if err != nil {
		if len(member) >= memberHead {
			f.run(ctx, "done", doneScript, f.cfg.LeasesPerAuthority, member[sortKeyLen+seqHexLen:memberHead], token, f.endedTTL())
		}
		return nil, err
	}
	f.mu.Lock()
	f.leases[req.Seq] = &held{token: token, url: req.URL}
	f.mu.Unlock()
	return req, nil
}

// endedTTL is how long Redis remembers that a lease was ended (in ms): as
// long as the store may repeat a Done or Retry whose reply was lost, with
// a margin.
func (f *Frontier) endedTTL() int64 {
	return (f.s.RetryFor() + time.Minute).Milliseconds()
}

// lease returns this Frontier's lease of req, or an error wrapping
// ErrNotLeased.
func (f *Frontier) lease(req *frontier.Request) (*held, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: nil request", frontier.ErrNotLeased)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, frontier.ErrClosed
	}
	l := f.leases[req.Seq]
	if l == nil || l.url != req.URL {
		return nil, fmt.Errorf("%w: %s (seq %d)", frontier.ErrNotLeased, req.URL, req.Seq)
	}
	if l.lost {
		delete(f.leases, req.Seq)
		return nil, fmt.Errorf("%w: %s (seq %d)", ErrLeaseLost, req.URL, req.Seq)
	}
	return l, nil
}

// ended forgets lease l of req after its script ran, and turns the
// script's code into an error. Once a Retry's script has run, another
// worker may lease the same request (same Seq) before ended runs: only l
// itself is forgotten, never that new lease.
func (f *Frontier) ended(req *frontier.Request, l *held, code int64) error {
	f.mu.Lock()
	if f.leases[req.Seq] == l {
		delete(f.leases, req.Seq)
	}
	f.mu.Unlock()
	if code == 1 {
		return nil
	}
	return fmt.Errorf("%w: %s (seq %d)", ErrLeaseLost, req.URL, req.Seq)
}

// Done ends the lease of a request this Frontier handed out (matched by
// Seq and URL, so a copy works too). It returns an error wrapping
// [frontier.ErrNotLeased] for a request this Frontier does not hold, and
// [ErrLeaseLost] for one whose lease expired and was given back to the
// queue. If Redis cannot be reached, the error wraps [redisstore.ErrUnavailable] and
// the lease is kept (and renewed): Done may be called again.
func (f *Frontier) Done(ctx context.Context, req *frontier.Request) error {
	l, err := f.lease(req)
	if err != nil {
		return err
	}
	res, err := f.run(ctx, "done", doneScript, f.cfg.LeasesPerAuthority, seqID(req.Seq), l.token, f.endedTTL())
	if err != nil {
		return err
	}
	r, _ := res.([]any)
	if intAt(r, 1) == 1 {
		f.wake.all()
	} else {
		f.wake.one()
	}
	return f.ended(req, l, intAt(r, 0))
}

// Complete pushes links, the requests found on req's page, as PushBatch
// does, and then ends req's lease as Done does, in the same script call
// when the links fit in one (at most 256, and each passes the check or no
// admission function is set): a fetched page costs one round trip for
// both. The links are queued before the lease ends, atomically, so the
// crawl never looks exhausted in between. It returns each link's result
// and error, as PushBatch, and the lease's error, as Done.
//
// If Redis cannot be reached, the lease is kept (and renewed) and the
// links not yet queued are Rejected with an error wrapping
// [redisstore.ErrUnavailable]: Complete may be called again, with the
// links that were not queued. A lease Complete cannot end (lost, or not
// this Frontier's) does not keep the links from being queued.
func (f *Frontier) Complete(ctx context.Context, req *frontier.Request, links []*frontier.Request) ([]frontier.PushResult, []error, error) {
	res, errs, _, err := f.CompleteCounting(ctx, req, links, nil)
	return res, errs, err
}

// CompleteCounting is Complete, and applies inc, the page's counter
// updates (redisstore.Counters.AddFetched), in the script call that ends
// the lease: a fetched page's counts cost no round trip of their own, and
// are in Redis once its lease has ended. counted says whether they were
// applied: true when the script ran, whatever it said of the lease (a page
// whose lease was lost was fetched all the same), and when a repeat of
// the call found the lease ended by an earlier one whose reply was lost
// (applied then, not twice); false when the lease is not this Frontier's
// or Redis could not be reached, and the caller then writes them itself.
func (f *Frontier) CompleteCounting(ctx context.Context, req *frontier.Request, links []*frontier.Request, inc *redisstore.Increments) (res []frontier.PushResult, errs []error, counted bool, err error) {
	l, err := f.lease(req)
	if err != nil {
		res, errs := f.PushBatch(ctx, links)
		return res, errs, false, err
	}
	res, errs, r, err := f.pushAll(ctx, links, &leaseEnd{id: seqID(req.Seq), token: l.token, ttl: f.endedTTL(), inc: inc})
	if err != nil {
		return res, errs, false, err
	}
	if intAt(r, 1) == 1 {
		f.wake.all()
	} else {
		f.wake.one()
	}
	return res, errs, true, f.ended(req, l, intAt(r, 0))
}

// Retry ends the lease of req and queues req, as passed, at the head of its
// authority's queue; the authority is not handed out before notBefore
// (read on the frontier's clock and kept in Redis as a wait from now). It
// fails as Done does; after an error wrapping [redisstore.ErrUnavailable] the lease is
// kept and Retry may be called again.
func (f *Frontier) Retry(ctx context.Context, req *frontier.Request, notBefore time.Time) error {
	l, err := f.lease(req)
	if err != nil {
		return err
	}
	body, err := requestJSON(req)
	if err != nil {
		return err
	}
	var wait int64
	if !notBefore.IsZero() {
		wait = redisstore.Micros(notBefore.Sub(f.cfg.Now()))
	}
	res, err := f.run(ctx, "retry", retryScript, f.cfg.LeasesPerAuthority, seqID(req.Seq), l.token,
		f.endedTTL(), sortKey(req, f.cfg.Order), body, wait)
	if err != nil {
		return err
	}
	r, _ := res.([]any)
	f.wake.one()
	return f.ended(req, l, intAt(r, 0))
}

// Close stops this process's use of the frontier: blocked and later Next
// calls return ErrClosed, Push, Done, Retry and Drain fail with ErrClosed,
// and lease renewal and the wake-up subscription stop. The crawl's state in
// Redis is untouched: leases still held expire after the lease timeout and
// go back to their queues for the other processes. Close does not close
// the store's client. Closing twice is harmless.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.mu.Unlock()
	close(f.done)
	f.cancel()
	err := f.ps.Close()
	f.bg.Wait()
	f.wake.stop()
	if err != nil && !errors.Is(err, redis.ErrClosed) {
		return fmt.Errorf("redisfrontier: close: %w", err)
	}
	return nil
}

package httpcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// DefaultRobotsMaxAge is the longest a stored robots.txt is served: heed's
// 24-hour rule for robots.txt freshness.
const DefaultRobotsMaxAge = 24 * time.Hour

// Cache stores responses and serves them again; see the package
// documentation for the model. Make one with [New] and put its Stage in a
// crawl's chain (heed's crawler does, with crawler.WithHTTPCache). A Cache
// is safe for concurrent use.
type Cache struct {
	store        Store
	policy       Policy
	maxAge       time.Duration
	robotsMaxAge time.Duration
	now          func() time.Time
	logger       *slog.Logger

	hits, misses, revalidated, stored, damaged, expired atomic.Int64
}

// Option is an optional setting of a Cache.
type Option func(*Cache)

// WithPolicy sets the policy (default Replay{}).
func WithPolicy(p Policy) Option { return func(c *Cache) { c.policy = p } }

// WithMaxAge makes an entry received longer than d ago (or last confirmed
// by the site that long ago, for a revalidated one) a miss, whatever the
// policy would say of it: the request goes to the site and its response
// replaces the entry, as Scrapy's HTTPCACHE_EXPIRATION_SECS does. Under
// Replay it bounds how old a replayed page may be; under RFC9111 it caps
// the freshness HTTP allows, and an entry past it is fetched whole, not
// revalidated. 0 (the default) and a negative d never expire an entry.
// robots.txt entries expire at the robots max age, or at d if shorter.
func WithMaxAge(d time.Duration) Option { return func(c *Cache) { c.maxAge = max(0, d) } }

// WithRobotsMaxAge sets how long a stored robots.txt may be served
// (default and at most 24 hours).
func WithRobotsMaxAge(d time.Duration) Option { return func(c *Cache) { c.robotsMaxAge = d } }

// WithClock sets the cache's source of time (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *Cache) { c.now = now } }

// WithLogger sets the logger for damaged entries and failed writes
// (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *Cache) { c.logger = l } }

// New returns a cache over store.
func New(store Store, opts ...Option) (*Cache, error) {
	if store == nil {
		return nil, errors.New("httpcache: nil store")
	}
	c := &Cache{store: store, policy: Replay{}, robotsMaxAge: DefaultRobotsMaxAge, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	if c.policy == nil {
		c.policy = Replay{}
	}
	if c.robotsMaxAge <= 0 || c.robotsMaxAge > DefaultRobotsMaxAge {
		c.robotsMaxAge = DefaultRobotsMaxAge
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Stats counts what a Cache did.
type Stats struct {
	// Hits are responses served without contacting the site.
	Hits int64 `json:"hits"`
	// Revalidated are stored responses the site confirmed with a 304.
	Revalidated int64 `json:"revalidated"`
	// Misses are requests that went to the site for a full response.
	Misses int64 `json:"misses"`
	// Stored are responses written to the store.
	Stored int64 `json:"stored"`
	// Expired are requests (among Misses) whose entry the policy would
	// have served or revalidated but that was too old for the cache's
	// max age (WithMaxAge), or a robots.txt older than the robots max
	// age: they went to the site and their responses replace the entries.
	Expired int64 `json:"expired"`
	// Damaged are entries found damaged (treated as misses) or that
	// could not be written.
	Damaged int64 `json:"damaged"`
	// Pruned are entries the store removed to stay within its size
	// bound (a Dir opened WithMaxBytes), since it was opened.
	Pruned int64 `json:"pruned"`
}

// Stats returns the counts so far.
func (c *Cache) Stats() Stats {
	s := Stats{Hits: c.hits.Load(), Revalidated: c.revalidated.Load(), Misses: c.misses.Load(),
		Stored: c.stored.Load(), Expired: c.expired.Load(), Damaged: c.damaged.Load()}
	if p, ok := c.store.(interface{ Pruned() int64 }); ok {
		s.Pruned = p.Pruned()
	}
	return s
}

// Format writes the counts on one line, as heed's crawl summary shows
// them.
func (s Stats) Format(w io.Writer) error {
	_, err := fmt.Fprintf(w, "HTTP cache: %d served, %d revalidated, %d fetched (%d of them expired), %d stored, %d pruned, %d damaged\n",
		s.Hits, s.Revalidated, s.Misses, s.Expired, s.Stored, s.Pruned, s.Damaged)
	return err
}

// Stage returns the cache as a middleware stage: a fresh entry answers the
// request, a stale one is revalidated through next, and everything else
// goes to next and its response is stored if the policy allows. Errors
// from next (exclusions, deferrals, failures) pass through unchanged.
func (c *Cache) Stage() middleware.Stage { return c.StageServing(nil) }

// StageServing is Stage with served wrapped around the serving of every
// fresh entry: a response from the store passes through served (as it
// would through the stages below the cache on its way from the site)
// before it is returned, and an error from served refuses it: the entry
// is not served, not counted as a hit, and the error goes up the chain.
// heed's crawler spends its page budget there, so that a page served
// from the cache spends it as a fetched one does, while a request that
// goes on to the site spends it below the politeness stage, only once
// pacing let it through. A nil served is Stage.
func (c *Cache) StageServing(served middleware.Stage) middleware.Stage {
	return func(next middleware.Fetcher) middleware.Fetcher {
		return middleware.FetcherFunc(func(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
			return c.fetch(ctx, next, served, req)
		})
	}
}

// Key returns the store key of a request: its fingerprint in hex.
func Key(req *frontier.Request) string { return req.Fingerprint().String() }

func method(req *frontier.Request) string {
	if req.Method == "" {
		return http.MethodGet
	}
	return req.Method
}

// lookup returns the usable entry for req, if any, and what the policy
// says of it; the caller closes body.
func (c *Cache) lookup(req *frontier.Request, key string, hreq Request) (*Entry, io.ReadCloser, Verdict) {
	e, body, err := c.store.Load(key)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil, Miss
	case err != nil:
		c.damaged.Add(1)
		c.logger.Warn("httpcache: entry not used", "url", req.URL, "error", err)
		return nil, nil, Miss
	}
	if e.Method != hreq.Method || e.URL != req.URL || !e.varyMatches(req.Header) {
		// A fingerprint collision, or a response for other request
		// headers: not this request's.
		body.Close()
		return nil, nil, Miss
	}
	now := c.now()
	v := c.policy.Check(hreq, e, now)
	if v != Miss && c.expiredAt(req, e, now) {
		c.expired.Add(1)
		v = Miss
	}
	return e, body, v
}

// expiredAt reports whether e is too old to be used at now, whatever the
// policy says: older than the max age, or a robots.txt at the robots max
// age.
func (c *Cache) expiredAt(req *frontier.Request, e *Entry, now time.Time) bool {
	age := now.Sub(e.ReceivedAt)
	if c.maxAge > 0 && age > c.maxAge {
		return true
	}
	return req.Kind == frontier.KindRobots && age >= c.robotsMaxAge
}

func (c *Cache) fetch(ctx context.Context, next middleware.Fetcher, served middleware.Stage, req *frontier.Request) (*middleware.Response, error) {
	key := Key(req)
	hreq := Request{Method: method(req), URL: req.URL, Header: req.Header}
	e, body, verdict := c.lookup(req, key, hreq)
	if verdict == Fresh {
		resp, err := c.serve(req, e, body)
		if err == nil {
			return c.hit(ctx, served, req, resp)
		}
		c.damaged.Add(1)
		c.logger.Warn("httpcache: entry not used", "url", req.URL, "error", err)
		verdict = Miss
	} else if body != nil {
		body.Close()
	}

	out := req
	if verdict == Stale {
		cp := *req
		cp.Header = conditional(req.Header, e)
		out = &cp
	}
	requested := c.now()
	resp, err := next.Fetch(ctx, out)
	if err != nil {
		return resp, err
	}
	resp.Request = req
	received := c.now()
	if verdict == Stale && resp.Status == http.StatusNotModified {
		if served, ok := c.revalidate(req, key, e, resp, requested, received); ok {
			return served, nil
		}
		// The stored body is gone or damaged: fetch it whole.
		return c.fetch(ctx, next, served, req)
	}
	c.misses.Add(1)
	entry := &Entry{
		Method: hreq.Method, URL: req.URL, RequestHeader: varyHeader(resp.Header, req.Header),
		Status: resp.Status, Header: resp.Header.Clone(), Truncated: resp.Truncated,
		RequestedAt: requested, ReceivedAt: received,
	}
	if entry.Header == nil {
		entry.Header = http.Header{}
	}
	if !c.policy.Storable(hreq, entry) {
		return resp, nil
	}
	c.save(key, entry, resp)
	return resp, nil
}

// hit returns resp, a fresh entry's response, through served; a refusal
// drops it.
func (c *Cache) hit(ctx context.Context, served middleware.Stage, req *frontier.Request, resp *middleware.Response) (*middleware.Response, error) {
	if served != nil {
		stored := middleware.FetcherFunc(func(context.Context, *frontier.Request) (*middleware.Response, error) {
			return resp, nil
		})
		out, err := served(stored).Fetch(ctx, req)
		if err != nil {
			if resp.Stream != nil {
				resp.Stream.Close()
			}
			return nil, err
		}
		resp = out
	}
	c.hits.Add(1)
	return resp, nil
}

// revalidate serves the stored body of e, refreshed by the 304 resp.
func (c *Cache) revalidate(req *frontier.Request, key string, e *Entry, resp *middleware.Response, requested, received time.Time) (*middleware.Response, bool) {
	if resp.Stream != nil {
		resp.Stream.Close()
	}
	n := refreshed(e, resp.Header, requested, received)
	if err := c.store.Update(key, n); errors.Is(err, ErrNotFound) {
		return nil, false // pruned meanwhile: fetched whole, no damage
	} else if err != nil {
		c.damaged.Add(1)
		c.logger.Warn("httpcache: revalidated entry not updated", "url", req.URL, "error", err)
	}
	_, body, err := c.store.Load(key)
	if errors.Is(err, ErrNotFound) {
		return nil, false
	}
	if err == nil {
		var served *middleware.Response
		if served, err = c.serve(req, n, body); err == nil {
			c.revalidated.Add(1)
			served.FromCache = false // the site was asked
			served.Elapsed = resp.Elapsed
			return served, true
		}
	}
	c.damaged.Add(1)
	c.logger.Warn("httpcache: revalidated entry not readable", "url", req.URL, "error", err)
	return nil, false
}

// serve builds the response for a stored entry: the body whole for a page
// and robots.txt, as a stream for a sitemap (as heed's downloader does).
func (c *Cache) serve(req *frontier.Request, e *Entry, body io.ReadCloser) (*middleware.Response, error) {
	resp := &middleware.Response{
		Request: req, URL: e.URL, Status: e.Status, Header: e.Header.Clone(),
		Truncated: e.Truncated, FromCache: true,
	}
	if req.Kind == frontier.KindSitemap {
		resp.Stream = body
		return resp, nil
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	resp.Body = b
	return resp, nil
}

// save stores a response: a body in hand at once, a streamed one as it is
// read (and only if it is read to the end).
func (c *Cache) save(key string, e *Entry, resp *middleware.Response) {
	p, err := c.store.Create(key)
	if err != nil {
		c.damaged.Add(1)
		c.logger.Warn("httpcache: response not stored", "url", e.URL, "error", err)
		return
	}
	if resp.Stream != nil {
		resp.Stream = &teeStream{rc: resp.Stream, p: p, e: e, c: c}
		return
	}
	if _, err := io.Copy(p, bytes.NewReader(resp.Body)); err != nil {
		p.Abort()
		c.damaged.Add(1)
		c.logger.Warn("httpcache: response not stored", "url", e.URL, "error", err)
		return
	}
	c.commit(p, e)
}

func (c *Cache) commit(p Pending, e *Entry) {
	if err := p.Commit(e); err != nil {
		c.damaged.Add(1)
		c.logger.Warn("httpcache: response not stored", "url", e.URL, "error", err)
		return
	}
	c.stored.Add(1)
}

// teeStream copies a streamed body to the store as the crawler reads it;
// the entry is committed when the body was read to its end, and dropped
// when the reader stopped early or failed.
type teeStream struct {
	rc   io.ReadCloser
	p    Pending
	e    *Entry
	c    *Cache
	eof  bool
	werr error
	done bool
}

func (t *teeStream) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if n > 0 && t.werr == nil {
		_, t.werr = t.p.Write(b[:n])
	}
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

// Unwrap returns the stream being copied.
func (t *teeStream) Unwrap() io.ReadCloser { return t.rc }

func (t *teeStream) Close() error {
	err := t.rc.Close()
	if t.done {
		return err
	}
	t.done = true
	if t.eof && t.werr == nil {
		t.c.commit(t.p, t.e)
	} else {
		t.p.Abort()
	}
	return err
}

// String describes the cache for logs.
func (c *Cache) String() string {
	if d, ok := c.store.(*Dir); ok {
		return fmt.Sprintf("httpcache %T in %s", c.policy, d.Root())
	}
	return fmt.Sprintf("httpcache %T", c.policy)
}

package discovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/sitemap"
	"github.com/heedcrawl/heed/skiplog"
)

// Engine is what a Reader needs of the crawl it feeds. The crawler is
// one; a test can be another.
type Engine interface {
	// Enqueue pushes requests to the crawl's frontier and accounts for
	// each as the engine accounts for a discovered URL (a refusal is
	// skip-logged by the engine); it returns one result per request, in
	// order.
	Enqueue(ctx context.Context, reqs []*frontier.Request) []frontier.PushResult
	// Skip writes one skip-log record; the engine keeps one record per
	// URL, whoever sends a second.
	Skip(rec *skiplog.Record)
	// Fetched counts a sitemap response.
	Fetched(authority string, status, bytes int)
	// Redirect queues the target of a redirect response, or skip-logs
	// why not.
	Redirect(ctx context.Context, resp *middleware.Response)
	// Robots returns the robots.txt entry cached for an authority.
	Robots(authority string) (*middleware.RobotsEntry, bool)
}

// metaProbe marks a seed's /sitemap.xml probe on its request.
const metaProbe = "heed.sitemap-probe"

// ErrProbeUnneeded ends a probe for /sitemap.xml made redundant by the
// Sitemap lines of the site's robots.txt (Reader.Stage). Nothing was
// discovered, so the engine accounts for nothing.
var ErrProbeUnneeded = errors.New("discovery: /sitemap.xml probe not needed: robots.txt lists the sitemaps")

// Reader is one crawl's sitemap discovery and reading. Its methods are
// safe for concurrent use by the crawl's workers.
type Reader struct {
	eng Engine
	cfg *Config
	log *slog.Logger

	mu       sync.Mutex
	seedAuth map[string]bool // Config.Seeds: the sites to discover
	perAuth  map[string]int
	seen     map[string]struct{} // canonical URLs of sitemaps queued
	st       Stats
	stopped  bool // Stop was called
	reading  map[*reading]struct{}
}

// reading is a sitemap being read, which Stop cuts.
type reading struct{ cut func() }

// New returns the Reader of a crawl configured by cfg (its defaults
// applied), feeding eng.
func New(cfg *Config, eng Engine, log *slog.Logger) *Reader {
	cfg.Defaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Reader{eng: eng, cfg: cfg, log: log, seedAuth: map[string]bool{}, perAuth: map[string]int{},
		seen: map[string]struct{}{}, reading: map[*reading]struct{}{}}
}

// Start queues the sitemaps the user gave (Config.URLs) and, with
// Config.Seeds, a probe per seed's site; it returns the seeds left to
// queue as pages.
func (m *Reader) Start(ctx context.Context, seeds []string) []string {
	for _, u := range m.cfg.URLs {
		m.queueSitemap(ctx, strings.TrimSpace(u), 0, "", false, nil)
	}
	if !m.cfg.Seeds {
		return seeds
	}
	var pages []string
	for _, s := range seeds {
		auth, err := frontier.Authority(strings.TrimSpace(s))
		if err != nil {
			pages = append(pages, s) // queued as a page, the frontier records it as invalid
			continue
		}
		m.mu.Lock()
		m.seedAuth[auth] = true
		m.mu.Unlock()
		m.queueSitemap(ctx, auth+"/sitemap.xml", 0, "", false, map[string]string{metaProbe: "1"})
	}
	return pages
}

// Discover queues the sitemaps of a freshly fetched (or restored)
// robots.txt, when discovery applies to its authority.
func (m *Reader) Discover(ctx context.Context, e *middleware.RobotsEntry) {
	m.mu.Lock()
	seed := m.seedAuth[e.Authority]
	m.mu.Unlock()
	if !(m.cfg.Discover || seed) || e.State == middleware.RobotsUnreachable {
		return
	}
	for _, s := range e.Sitemaps {
		m.queueSitemap(ctx, s, 0, e.URL, true, nil)
	}
	if len(e.Sitemaps) == 0 && !m.cfg.NoFallback {
		m.queueSitemap(ctx, e.Authority+"/sitemap.xml", 0, e.URL, false, nil)
	}
}

// queueSitemap queues one sitemap. listed says it was listed by robots.txt
// or an index, where the follow patterns apply.
func (m *Reader) queueSitemap(ctx context.Context, rawURL string, depth int, referrer string, listed bool, meta map[string]string) {
	req := &frontier.Request{URL: rawURL, Kind: frontier.KindSitemap, Depth: depth, Referrer: referrer, Meta: meta}
	canon, err := frontier.Canonicalize(rawURL)
	if err != nil {
		m.enqueue(ctx, req) // the frontier records it as invalid
		return
	}
	auth, _ := frontier.Authority(canon)
	m.mu.Lock()
	if _, dup := m.seen[canon]; dup {
		m.mu.Unlock()
		m.enqueue(ctx, req) // counted as a duplicate by the frontier
		return
	}
	var reason skiplog.Reason
	var detail string
	switch {
	case listed && !m.cfg.Follows(canon):
		reason, detail = skiplog.SitemapFilter, "sitemap matches no follow pattern"
	case depth > m.cfg.MaxDepth:
		reason, detail = skiplog.SitemapLimit, fmt.Sprintf("sitemap index nested %d levels deep, over the limit of %d", depth, m.cfg.MaxDepth)
	case m.perAuth[auth] >= m.cfg.PerAuthority:
		reason, detail = skiplog.SitemapLimit, fmt.Sprintf("already %d sitemaps from %s, the limit", m.perAuth[auth], auth)
	default:
		m.seen[canon] = struct{}{}
		m.perAuth[auth]++
	}
	m.mu.Unlock()
	if reason != "" {
		m.eng.Skip(&skiplog.Record{URL: canon, Authority: auth, Reason: reason, Detail: detail, Depth: depth, Referrer: referrer})
		return
	}
	added := m.enqueue(ctx, req) == frontier.Added
	m.mu.Lock()
	if added {
		m.st.Queued++
	} else {
		m.perAuth[auth]-- // refused by the frontier's admission: not read
	}
	m.mu.Unlock()
}

func (m *Reader) enqueue(ctx context.Context, req *frontier.Request) frontier.PushResult {
	return m.eng.Enqueue(ctx, []*frontier.Request{req})[0]
}

// Stage drops a seed's /sitemap.xml probe that robots.txt made redundant,
// with ErrProbeUnneeded, and fetches the other sitemaps on a context the
// crawl's stop cuts (see Reader.Stop): a sitemap waiting for its pace or
// its response when the crawl stops ends at once with an *Interrupted. A
// sitemap that gets no response (the tries spent, an error the chain
// below does not retry) is counted failed in Stats. It sits after the
// robots stage, which has fetched the site's robots.txt, and above
// pacing and retries.
func (m *Reader) Stage() middleware.Stage {
	return func(next middleware.Fetcher) middleware.Fetcher {
		return middleware.FetcherFunc(func(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
			if req.Kind != frontier.KindSitemap {
				return next.Fetch(ctx, req)
			}
			if req.Meta[metaProbe] != "" && !m.probeNeeded(req) {
				m.mu.Lock()
				m.st.Probes++
				m.mu.Unlock()
				return nil, ErrProbeUnneeded
			}
			return m.fetch(ctx, next, req)
		})
	}
}

func (m *Reader) probeNeeded(req *frontier.Request) bool {
	e, ok := m.eng.Robots(req.Authority())
	if !ok {
		return true
	}
	if len(e.Sitemaps) == 0 {
		return !m.cfg.NoFallback
	}
	for _, s := range e.Sitemaps {
		if c, err := frontier.Canonicalize(s); err == nil && c == req.URL {
			return true
		}
	}
	return false
}

// errStopped is the cause of a sitemap reading cut by Stop.
var errStopped = errors.New("the crawl stopped")

// Interrupted is the error Handle returns for a sitemap whose reading the
// crawl's stop cut (Reader.Stop): the pages it lists past the cut are
// unknown, so the sitemap is not done. A backend that keeps its queue (a
// paused job, a process of a shared crawl) takes it back, to be read
// again from its start (the pages queued before the cut then come back as
// duplicates); a crawl that drains its queue writes Record to the skip
// log.
type Interrupted struct {
	Request *frontier.Request
	// Entries counts the entries read before the cut: pages and child
	// sitemaps, with a problem or without.
	Entries int
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("discovery: the crawl stopped while sitemap %s was fetched or read, after %d entries", e.Request.URL, e.Entries)
}

// Record is the skip-log record of the cut sitemap, for a crawl that will
// not read it again.
func (e *Interrupted) Record() *skiplog.Record {
	req := e.Request
	return &skiplog.Record{URL: req.URL, Authority: req.Authority(), Reason: skiplog.Interrupted, Depth: req.Depth, Referrer: req.Referrer,
		Detail: fmt.Sprintf("the crawl stopped while this sitemap was fetched or read: %d entries read and accounted for, the rest not read", e.Entries)}
}

// Stop cuts the reading of every sitemap being read or waiting for its
// response (see Stage), and of those handed to Stage or Handle
// afterwards: the crawl is stopping, and a sitemap is a request that may
// wait and stream for as long as its timeout allows (no hostage workers).
// The engine calls it when the crawl is interrupted; for each cut
// sitemap, Stage or Handle returns an *Interrupted.
func (m *Reader) Stop() {
	m.mu.Lock()
	m.stopped = true
	cuts := make([]*reading, 0, len(m.reading))
	for rd := range m.reading {
		cuts = append(cuts, rd)
	}
	m.mu.Unlock()
	for _, rd := range cuts {
		rd.cut()
	}
}

// startReading registers a sitemap being read, cut by Stop with cut (at
// once if the crawl is stopping); the returned func ends it.
func (m *Reader) startReading(cut func()) (end func()) {
	rd := &reading{cut: cut}
	m.mu.Lock()
	stopped := m.stopped
	m.reading[rd] = struct{}{}
	m.mu.Unlock()
	if stopped {
		cut()
	}
	return func() {
		m.mu.Lock()
		delete(m.reading, rd)
		m.mu.Unlock()
	}
}

// Handle reads a sitemap response: redirects go back to the frontier,
// other statuses are counted, and a 2xx body is parsed as it streams in,
// its pages queued on ctx. It returns an *Interrupted when Stop cut the
// reading, nil otherwise: the sitemap is then done, read or not, and
// accounted for in Stats. A sitemap read only in part for another
// reason has a skip-log record saying how many entries were read before
// the cut and why the rest were not: fetch-error for a read error, the
// request's timeout or malformed content, sitemap-limit for a limit of
// the sitemap package (content in no sitemap format is failed, not
// skip-logged: nothing was cut). It is not read again: the retry stage
// retries a sitemap that gets no response, not one whose body broke.
func (m *Reader) Handle(ctx context.Context, resp *middleware.Response) error {
	req := resp.Request
	body := resp.Stream
	if body == nil { // a downloader that does not stream
		body = io.NopCloser(bytes.NewReader(resp.Body))
	}
	defer body.Close()
	auth := req.Authority()
	res := Result{URL: req.URL, Status: resp.Status}
	if resp.Status >= 300 && resp.Status < 400 && resp.Header.Get("Location") != "" {
		m.eng.Fetched(auth, resp.Status, 0)
		if req.Meta[metaProbe] != "" {
			// The target is a sitemap in its own right, not a probe.
			meta := make(map[string]string, len(req.Meta))
			for k, v := range req.Meta {
				if k != metaProbe {
					meta[k] = v
				}
			}
			req.Meta = meta
		}
		m.eng.Redirect(ctx, resp)
		return nil
	}
	if resp.Status < 200 || resp.Status >= 300 {
		m.eng.Fetched(auth, resp.Status, 0)
		res.Err = fmt.Sprintf("status %d", resp.Status)
		m.result(res, false)
		m.log.Info("sitemap not read", "url", req.URL, "status", resp.Status)
		return nil
	}
	// The stop cuts the parse and the body it waits on; what was read is
	// queued on ctx all the same.
	read, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	end := m.startReading(func() {
		cut(errStopped)
		if c := findCutter(body); c != nil {
			c.cut(errStopped)
		}
	})
	b := &pages{body: body}
	rep, err := sitemap.Parse(read, body, func(e sitemap.Entry) error {
		m.entry(ctx, req, e, b)
		return nil
	}, sitemap.WithBase(req.URL), sitemap.WithScope(m.cfg.Scope))
	end()
	m.flush(ctx, b)
	m.eng.Fetched(auth, resp.Status, int(rep.Bytes))
	if err == nil {
		err = rep.Err
	}
	res.Format, res.Compressed, res.Bytes = rep.Format.String(), rep.Compressed, rep.Bytes
	res.URLs, res.Sitemaps, res.Rejected = rep.URLs, rep.Sitemaps, rep.Rejected
	if rep.Truncated {
		res.TruncatedBy = string(rep.TruncatedBy)
	}
	entries := rep.URLs + rep.Sitemaps + rep.Rejected
	var stopped *Interrupted
	if err != nil && errors.Is(context.Cause(read), errStopped) {
		stopped = &Interrupted{Request: req, Entries: entries}
		res.Interrupted, err = true, stopped
	}
	if err != nil {
		res.Err = err.Error()
	}
	m.result(res, err == nil)
	// A sitemap cut by anything but the stop is done: the pages it lists
	// past the cut will not be known, so its record says where it was cut.
	// Content that is no sitemap at all (an HTML page) lists nothing to
	// cut: it is failed, with its error, as a status is.
	switch {
	case stopped != nil, errors.Is(err, sitemap.ErrUnknownFormat):
	case err != nil:
		m.eng.Skip(cutRecord(req, skiplog.FetchError, entries, err.Error()))
	case rep.Truncated:
		m.eng.Skip(cutRecord(req, skiplog.SitemapLimit, entries, fmt.Sprintf("cut by the %s limit", rep.TruncatedBy)))
	}
	attrs := []any{"url", req.URL, "format", res.Format, "urls", rep.URLs, "sitemaps", rep.Sitemaps, "rejected", rep.Rejected}
	if res.TruncatedBy != "" {
		attrs = append(attrs, "truncated", res.TruncatedBy)
	}
	if res.Err != "" {
		attrs = append(attrs, "error", res.Err)
	}
	m.log.Info("sitemap read", attrs...)
	if stopped != nil {
		return stopped
	}
	return nil
}

func (m *Reader) result(res Result, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case res.Interrupted:
		m.st.Interrupted++
	case ok:
		m.st.Read++
	default:
		m.st.Failed++
	}
	if res.TruncatedBy != "" {
		m.st.Truncated++
	}
	if res.Incomplete() {
		m.st.Incomplete++
	}
	if len(m.st.Sitemaps) < maxResults {
		m.st.Sitemaps = append(m.st.Sitemaps, res)
	} else {
		m.st.SitemapsDropped++
	}
}

// entry handles one entry of a sitemap being read; the pages it lists
// are queued in chunks (b).
func (m *Reader) entry(ctx context.Context, parent *frontier.Request, e sitemap.Entry, b *pages) {
	if e.Kind == sitemap.KindURL {
		m.mu.Lock()
		m.st.Listed++
		m.mu.Unlock()
	}
	if e.Problem != "" {
		reason := skiplog.InvalidURL
		if e.Problem == sitemap.ProblemOutOfScope {
			reason = skiplog.SitemapScope
		}
		m.skipEntry(parent, e, reason, fmt.Sprintf("%s: %s", e.Problem, e.Detail))
		return
	}
	if e.Kind == sitemap.KindSitemap {
		m.queueSitemap(ctx, e.Loc, parent.Depth+1, parent.URL, true, nil)
		return
	}
	if why := m.cfg.Refuses(e); why != "" {
		m.skipEntry(parent, e, skiplog.SitemapFilter, why)
		return
	}
	callback, ok := m.cfg.callback(e.Loc)
	if !ok {
		m.skipEntry(parent, e, skiplog.SitemapFilter, "matches no sitemap rule")
		return
	}
	b.reqs = append(b.reqs, &frontier.Request{URL: e.Loc, Referrer: parent.URL, Callback: callback, Meta: entryMeta(parent.URL, e)})
	if len(b.reqs) >= pushChunk {
		m.flush(ctx, b)
	}
}

// pushChunk is how many listed pages are queued at once: a durable
// frontier commits them with one fsync, a shared one in a few round
// trips, where one push per entry made a 50,000-URL sitemap cost 50,000
// synced writes.
const pushChunk = 512

// pages are the pages a sitemap listed, waiting to be queued, and the
// body being read, whose deadline stops while they are.
type pages struct {
	body io.ReadCloser
	reqs []*frontier.Request
}

// flush queues b's pages, the body's clock stopped, and counts each.
func (m *Reader) flush(ctx context.Context, b *pages) {
	if len(b.reqs) == 0 {
		return
	}
	if p := findPauser(b.body); p != nil {
		p.pause()
		defer p.resume()
	}
	results := m.eng.Enqueue(ctx, b.reqs)
	b.reqs = b.reqs[:0]
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, res := range results {
		switch res {
		case frontier.Added:
			m.st.PagesQueued++
		case frontier.Duplicate:
			m.st.Duplicates++
		default:
			m.st.Skipped++ // the frontier's admission refused it, and the engine logged why
		}
	}
}

// skipEntry skip-logs an entry a sitemap listed.
func (m *Reader) skipEntry(parent *frontier.Request, e sitemap.Entry, reason skiplog.Reason, why string) {
	detail := fmt.Sprintf("listed in %s line %d: %s", parent.URL, e.Line, why)
	if e.Kind == sitemap.KindURL {
		m.mu.Lock()
		m.st.Skipped++
		m.mu.Unlock()
	}
	m.eng.Skip(&skiplog.Record{URL: e.Loc, Reason: reason, Detail: detail, Depth: parent.Depth + 1, Referrer: parent.URL})
}

// Stats returns what the crawl did with sitemaps so far.
func (m *Reader) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.st
	s.Sitemaps = append([]Result(nil), m.st.Sitemaps...)
	return s
}

// Package crawler is heed's engine and its spider API: it wires the
// frontier, the middleware chain (scope, robots, budget, politeness,
// retry), the downloader, the spider callbacks, the item pipelines and the
// skip log into a crawl, and counts it (package stats).
//
//	c, err := crawler.New("ExampleBot", crawler.WithSkipLog(skipped))
//	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
//	c.OnHTML("h1", func(e *crawler.HTMLElement) { e.Emit(map[string]string{"title": e.Text}) })
//	summary, err := c.Run(ctx, "https://example.com/")
//
// Every URL the crawl discovers ends in exactly one of three ways: fetched,
// counted as a duplicate, or written to the skip log with its reason.
//
// # Spiders, items and stats
//
// Callbacks have colly's shape: OnHTML, OnXML, OnResponse and OnError on
// the crawler (the default handler) or on a named handler, Handle(name),
// which parses the responses of requests that name it (WithCallback), with
// values passed along by WithMeta; Response.Context is the run's context.
// What a callback asks colly's view of its page to Visit or Post is
// followed as Follow does: colly fetches nothing itself. A Spider bundles a
// name, start URLs and Setup; RunSpider runs one. Items are any Go values:
// Emit sends them through Pipeline stages (Stage, Dedup, Drop; ItemSource
// tells a stage which page an item came from) to Exporters (package feed
// has heed's); package pipeline runs them. Crawler.Stats counts
// everything, the hooks (OnStart, OnItem, OnItemDropped, OnSkip, OnFinish)
// signal it, package crawler/metrics serves the counts to Prometheus, and
// Live shows the queue and the pacing. Every setting is a typed Option.
//
// # Rooms
//
// The crawler wires; the packages decide. Where the job lives is a
// backend's (package backend: the default Memory, package jobstate on
// disk, package fleet through Redis; WithBackend), and the engine has no
// branch for any mode. robots.txt verdicts come from package robots
// through the middleware's robots stage, pacing from package politeness,
// queueing and deduplication from the frontier, sitemaps from package
// discovery, what a page may cost from package htmlpage, the policy for
// what a site says outside robots.txt from package pagepolicy, link rules
// from package linkrule, the download (colly, the body cap, cookies, the
// User-Agent and header rules) from package download. The sitemap
// inventory is package inventory, configured by the same Options
// (ResolveSettings).
//
// # What a site says outside robots.txt
//
// Each page's directives (package pagerobots: meta robots, the meta naming
// the crawler's token, X-Robots-Tag) and AI usage preferences (package
// aipref, from robots.txt Content-Usage rules and the Content-Usage
// header) are read once and attached to the Response and, through
// SignalCarrier, to its items. nofollow is honoured by default
// (WithNofollow), rel="nofollow" only with WithRelNofollow; WithRespect
// and WithPurposes keep a page's items out of the exporters. Each
// exclusion is one skip-log record with its evidence.
//
// # Logging
//
// The crawl logs through WithLogger's logger; without one, warnings and
// errors go to slog's default logger (stderr unless the program set
// another) and the rest is dropped. Warnings are said when they happen:
// retries and requests whose tries are spent, authorities paused by a 429
// or 503, robots.txt outages and give-ups, authorities given up, the first
// lost skip-log record or export, a callback name no handler has, and a
// Stage whose type no item matched (a stage for P while the spider emits
// *P): each of the last ones once.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/htmlpage"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/pagepolicy"
	"github.com/heedcrawl/heed/pipeline"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
	"github.com/heedcrawl/heed/warnings"
)

// Crawler is a configured crawl. Register callbacks on it (it is the
// default Handler) and on named handlers, then call Run once.
type Crawler struct {
	Handler

	agent string
	cfg   config

	mu        sync.Mutex
	handlers  map[string]*Handler
	pipelines []Pipeline
	exporters []Exporter
	hooks     hooks
	ran       bool
	stats     *stats.Collector
	live      atomic.Pointer[Live] // see live.go
}

// New returns a crawler that identifies itself with the product token
// agent (for example "ExampleBot"): robots.txt groups are selected by it,
// and the User-Agent header must contain it.
func New(agent string, opts ...Option) (*Crawler, error) {
	if !robots.ValidProductToken(agent) {
		return nil, fmt.Errorf("crawler: %q is not a valid product token (letters, '-' and '_' only)", agent)
	}
	cfg, err := resolve(agent, opts)
	if err != nil {
		return nil, err
	}
	c := &Crawler{agent: agent, cfg: *cfg, handlers: make(map[string]*Handler)}
	b, err := c.cfg.backend()
	if err != nil {
		return nil, err
	}
	if err := b.Check(c.job(nil, nil)); err != nil {
		return nil, err
	}
	if err := c.cfg.checkDevLoop(); err != nil {
		return nil, err
	}
	if err := c.cfg.pages.Check(); err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	c.stats = stats.New(c.cfg.now)
	return c, nil
}

// Agent returns the crawler's product token.
func (c *Crawler) Agent() string { return c.agent }

// UserAgent returns the User-Agent header the crawler sends.
func (c *Crawler) UserAgent() string { return c.cfg.userAgent }

// Handle returns the handler named name, creating it: requests whose
// Callback is name are parsed by its callbacks instead of the default
// ones.
func (c *Crawler) Handle(name string) *Handler {
	if name == "" {
		return &c.Handler
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.handlers[name]
	if h == nil {
		h = &Handler{name: name}
		c.handlers[name] = h
	}
	return h
}

// handlerNames returns the names of the named handlers, for a message.
func (c *Crawler) handlerNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.handlers))
	for n := range c.handlers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (c *Crawler) handler(name string) *Handler {
	if name == "" {
		return &c.Handler
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handlers[name]
}

// Stats returns the crawl's live statistics.
func (c *Crawler) Stats() *stats.Collector { return c.stats }

// Summary is what Run reports at the end of a crawl.
type Summary struct {
	Stats   stats.Snapshot
	Skipped skiplog.Summary
	// Sitemaps is what the crawl did with sitemaps.
	Sitemaps discovery.Stats
	// Interrupted reports that the crawl was stopped before its frontier
	// was exhausted.
	Interrupted bool
	// Backend is the backend's own account of the job (WithBackend):
	// package jobstate's says whether the job is complete or paused (and
	// Stats and Skipped above then count every run of the job), package
	// fleet's gives the whole crawl's counts (Stats and Skipped above are
	// this process's). Nil for the in-memory default.
	Backend backend.Summary
	// NothingFetched is set when the crawl ran to its end without
	// fetching a single page although it tried: every URL failed (see
	// NothingFetched). Nil otherwise, a crawl that robots.txt or its
	// scope left with nothing to fetch included.
	NothingFetched *NothingFetched
}

// Run crawls from the seeds until the frontier is exhausted or ctx is
// cancelled. Cancellation stops intake: requests in flight finish, except
// a sitemap still being read, which is cut (it may stream for as long as
// its timeout allows); every URL still queued is written to the skip log
// (reason interrupted, or robots-unreachable for authorities whose
// robots.txt is unreachable), a cut sitemap too, with the count of
// entries read; and the item and skip-log outputs are flushed before Run
// returns. A backend may stop otherwise (see StopPolicy): a job kept by
// package jobstate pauses, its queued URLs staying queued for the next
// run; a process of a crawl shared by package fleet leaves them to the
// other processes. Either way a cut sitemap goes back to the queue with
// them, to be read again from its start.
func (c *Crawler) Run(ctx context.Context, seeds ...string) (Summary, error) {
	c.mu.Lock()
	if c.ran {
		c.mu.Unlock()
		return Summary{}, errors.New("crawler: Run may be called once")
	}
	c.ran = true
	c.mu.Unlock()
	r, err := c.newRun(ctx, seeds)
	if err != nil {
		return Summary{}, err
	}
	return r.crawl(ctx, seeds)
}

// run is one crawl's wiring: the parts Run builds from the configuration.
type run struct {
	c      *Crawler
	cfg    *config
	stats  *stats.Collector
	sess   backend.Session // the job's backend's side of the run
	front  frontier.Frontier
	pace   backend.Pacer
	robots *middleware.Robots
	scope  *middleware.Scope
	chain  middleware.Fetcher
	down   *download.Downloader
	items  *pipeline.Sink
	maps   *discovery.Reader
	budget *middleware.Budget
	// parses bounds the HTML trees in use at once (WithMaxPageElements).
	parses *htmlpage.Budget
	// work is the run's context for work that is not cancelled with
	// Run's (set when the run starts, cancelled when it is over).
	work context.Context

	said    warnings.Once // warnings said once per crawl (logging.go)
	follows follows
	fails   stats.Failures   // the first error of a URL that could not be fetched (nothing.go)
	links   pagepolicy.Links // links not followed for nofollow (pagesignals.go)
	// record, in a run made by Parse, collects what callbacks emit and
	// follow instead of the pipelines and the frontier (parse.go).
	record *recorder

	wg sync.WaitGroup
}

func (c *Crawler) newRun(ctx context.Context, seeds []string) (*run, error) {
	r, err := c.wire(ctx, seeds)
	if err != nil && r != nil && r.sess != nil {
		if r.front != nil {
			r.front.Close()
		}
		r.sess.Close()
	}
	return r, err
}

// wire builds a run's parts; ctx is the run's, for the backend's opening.
func (c *Crawler) wire(ctx context.Context, seeds []string) (*run, error) {
	cfg := &c.cfg
	r := &run{c: c, cfg: cfg, stats: c.stats, parses: htmlpage.NewBudget(2 * cfg.maxElements)}
	r.links.Policy, r.links.Write = cfg.pages, r.skip
	domains := cfg.domains
	if len(domains) == 0 {
		for _, s := range append(seeds[:len(seeds):len(seeds)], cfg.sitemaps.URLs...) {
			if u, err := parseHTTPURL(s); err == nil {
				domains = append(domains, u.Hostname())
			}
		}
	}
	r.scope = &middleware.Scope{Domains: domains, Include: cfg.include, Exclude: cfg.exclude, MaxDepth: cfg.maxDepth}
	b, err := cfg.backend()
	if err != nil {
		return nil, err
	}
	sess, err := b.Open(ctx, c.job(seeds, r))
	if err != nil {
		return nil, err
	}
	r.sess, r.pace, r.front = sess, sess.Pacer(), sess.Frontier()
	if r.down, err = download.New(cfg.downloadConfig(r.strayVisit)); err != nil {
		return r, fmt.Errorf("crawler: WithCookies: %w", err)
	}
	pace := middleware.Politeness(r.pace)
	policy := cfg.robotsPolicy(c.agent)
	policy.OnFetched, policy.OnLoaded = r.robotsFetched, r.robotsLoaded
	retry := cfg.retry()
	budget := &middleware.Budget{Total: cfg.maxPages, PerAuthority: cfg.maxPerHost}
	sess.Chain(&policy, budget)
	down := r.stats.Timed(r.down)
	r.robots = middleware.NewRobots(r.cacheStage(nil)(pace(down)), policy)
	r.budget = budget
	r.maps = discovery.New(&cfg.sitemaps, (*sitemapEngine)(r), cfg.logger)
	stages := []middleware.Stage{
		r.scope.Stage(),
		r.robots.Stage(),
		r.maps.Stage(),
		budget.Check(),
		// A page served from the cache spends the budget as a fetched one
		// does, so a replay stops where the crawl it replays stopped; a
		// page that goes on to the site spends it below pacing, only when
		// it is about to be sent: a URL the politeness stage excludes or
		// defers spends nothing, cache or not.
		r.cacheStage(budget.Stage()),
		pace,
		budget.Stage(),
		retry.Stage(),
	}
	r.chain = middleware.Chain(down, stages...)
	r.items = newItemSink(c, cfg)
	r.stats.SetQueue(func() (int, int) {
		fs := r.front.Stats()
		return fs.Queued, fs.Leased
	})
	c.live.Store(r.newLive())
	return r, nil
}

// robotsFetched hands a fresh robots.txt's Crawl-delay to the pacer and
// counts the outcome.
func (r *run) robotsFetched(e *middleware.RobotsEntry) {
	r.stats.RobotsFetched(e)
	r.sess.Count(backend.Event{Kind: backend.RobotsFetched, Authority: e.Authority, Robots: e.State.String()})
	r.applyCrawlDelay(e)
	r.maps.Discover(r.work, e)
}

// robotsLoaded takes in a robots.txt another process of a shared crawl
// fetched: its Crawl-delay is set again, in case that process stopped
// before it could, and its sitemaps are discovered (pushes of URLs
// already queued are duplicates).
func (r *run) robotsLoaded(e *middleware.RobotsEntry) {
	r.stats.RobotsRestored(e)
	r.applyCrawlDelay(e)
	r.maps.Discover(r.work, e)
}

func (r *run) applyCrawlDelay(e *middleware.RobotsEntry) {
	err := r.pace.SetCrawlDelay(r.work, e.Authority, e.CrawlDelay())
	var tooLong *politeness.DelayTooLongError
	switch {
	case errors.As(err, &tooLong):
		r.cfg.logger.Warn("crawl-delay over the cap: authority excluded", "authority", e.Authority, "error", err)
	case err != nil:
		r.cfg.logger.Error("crawl-delay not recorded", "authority", e.Authority, "error", err)
	}
}

func (r *run) crawl(ctx context.Context, seeds []string) (Summary, error) {
	// In-flight requests finish on a context that is not cancelled with
	// ctx: stopping means no new work, not abandoned work. Work begun
	// outside a request (a robots.txt's sitemaps, a stray Visit) runs on
	// it too. It ends when the run does: what a callback started on
	// Response.Context stops with the crawl.
	work, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	r.work = work
	// The stop cuts the sitemaps being read: a sitemap may stream for as
	// long as its timeout allows, and the crawl stops now (process).
	defer context.AfterFunc(ctx, r.maps.Stop)()
	r.stats.Start()
	if err := r.sess.Start(ctx); err != nil {
		r.front.Close()
		r.sess.Close()
		return Summary{}, fmt.Errorf("crawler: %w", err)
	}
	r.c.hooks.started.raise(r.c)
	var pages []*frontier.Request
	for _, s := range r.maps.Start(ctx, seeds) {
		pages = append(pages, &frontier.Request{URL: strings.TrimSpace(s)})
	}
	r.enqueueAll(work, pages)
	for i := 0; i < r.cfg.workers; i++ {
		r.wg.Add(1)
		go r.worker(ctx, work)
	}
	r.wg.Wait()
	r.flushHeld()
	// No robots.txt fetch may outlive the workers: what it would tell
	// (stats, the state, sitemap discovery) is closed below.
	r.robots.Close()

	interrupted := ctx.Err() != nil
	// Only a crawl of this process alone drains its queue: a job that
	// pauses keeps it, a process of a shared crawl leaves it to the others.
	if interrupted && r.sess.Stop() == backend.Drain {
		r.drain(work)
	}
	r.stats.Finish()
	r.items.Report()
	ierr := r.items.Close()
	res := backend.Result{Stats: r.stats.Snapshot()}
	berr := r.sess.Finish(&res)
	sum := Summary{Stats: res.Stats, Skipped: res.Skipped, Backend: res.Summary, Sitemaps: r.maps.Stats(), Interrupted: interrupted}
	sum.NothingFetched = nothingFetched(&sum, r.fails.First())
	r.c.hooks.finished.raise(sum)
	if err := r.front.Close(); err != nil && ierr == nil {
		ierr = err
	}
	if err := errors.Join(berr, r.sess.Close()); err != nil {
		return sum, err
	}
	return sum, ierr
}

func (r *run) worker(intake, work context.Context) {
	defer r.wg.Done()
	for {
		req, err := r.front.Next(intake)
		if err != nil {
			if !errors.Is(err, frontier.ErrExhausted) && intake.Err() == nil {
				r.cfg.logger.Error("frontier", "error", err)
			}
			return
		}
		r.process(work, req)
	}
}

// process takes one leased request through the chain and ends its lease.
func (r *run) process(ctx context.Context, req *frontier.Request) {
	if r.sess.Accounted(req) {
		r.done(ctx, req)
		return
	}
	resp, err := r.chain.Fetch(ctx, req)
	var de *middleware.DeferError
	var rec *skiplog.Record
	var cut *discovery.Interrupted
	switch {
	case errors.As(err, &de):
		r.stats.Deferred(de.Reason)
		if rerr := r.front.Retry(ctx, req, de.Until); rerr != nil {
			r.skip(&skiplog.Record{URL: req.URL, Authority: req.Authority(), Reason: skiplog.FetchError, Err: rerr.Error(), Detail: "could not requeue"})
			r.done(ctx, req)
		}
		return
	case errors.As(err, &rec):
		r.skip(rec)
		r.gaveUp(rec)
	case errors.Is(err, discovery.ErrProbeUnneeded):
		// A /sitemap.xml guess robots.txt made redundant: nothing to account for.
	case errors.As(err, &cut):
		r.sitemapCut(ctx, cut)
		return
	case err != nil:
		r.skip(&skiplog.Record{URL: req.URL, Authority: req.Authority(), Reason: skiplog.FetchError, Err: err.Error(), Depth: req.Depth, Referrer: req.Referrer})
	case req.Kind == frontier.KindSitemap:
		if errors.As(r.maps.Handle(ctx, resp), &cut) {
			r.sitemapCut(ctx, cut)
			return
		}
	default:
		r.handle(ctx, resp)
	}
	// The page's links, buffered while its callbacks ran, are pushed
	// as its lease ends: in one call where the frontier can.
	r.flushFollows(ctx, req)
}

func (r *run) done(ctx context.Context, req *frontier.Request) {
	if err := r.front.Done(ctx, req); err != nil {
		r.cfg.logger.Error("frontier done", "url", req.URL, "error", err)
	}
}

// handle accounts for a page's response and hands it on: redirects to
// the frontier, pages to the callbacks (sitemaps go to the sitemap
// reader, in process).
func (r *run) handle(ctx context.Context, resp *middleware.Response) {
	req := resp.Request
	r.fetched(req, resp.Status, len(resp.Body))
	if resp.FromCache {
		r.stats.CacheHit()
	}
	if resp.Truncated {
		r.stats.BodyCut()
	}
	if resp.Status >= 300 && resp.Status < 400 && resp.Header.Get("Location") != "" {
		r.redirect(ctx, resp)
		return
	}
	// The page's links are pushed when its callbacks are done, at once,
	// by process.
	r.collectFollows(req)
	if resp.Status < 200 || resp.Status >= 300 {
		r.dispatchError(ctx, resp)
		return
	}
	r.dispatch(ctx, resp)
}

// fetched counts a downloaded response to req, here and in the backend.
func (r *run) fetched(req *frontier.Request, status, bytes int) {
	authority := req.Authority()
	r.stats.Fetched(authority, status, bytes)
	r.sess.Count(backend.Event{Kind: backend.Fetched, Authority: authority, Status: status, Bytes: bytes, Request: req})
}

// enqueue pushes a discovered request, accounts for the outcome and
// returns it. ctx is the context of the work that found it.
func (r *run) enqueue(ctx context.Context, req *frontier.Request) frontier.PushResult {
	res, err := r.front.Push(ctx, req)
	r.pushed(req, res, err)
	return res
}

// pushed accounts for the outcome of one push.
func (r *run) pushed(req *frontier.Request, res frontier.PushResult, err error) {
	switch res {
	case frontier.Added:
		r.stats.Queued()
	case frontier.Duplicate:
		r.stats.Duplicate()
	default:
		if errors.Is(err, errRecorded) {
			return // the admission wrote its record (backend.go)
		}
		var rec *skiplog.Record
		if !errors.As(err, &rec) {
			rec = &skiplog.Record{URL: req.URL, Reason: skiplog.InvalidURL, Depth: req.Depth, Referrer: req.Referrer}
			if err != nil {
				rec.Err = err.Error()
			}
			if errors.Is(err, frontier.ErrClosed) || errors.Is(err, backend.ErrNotQueued) {
				rec.Reason = skiplog.Interrupted
			}
		}
		r.skip(rec)
	}
}

// skip writes one skip-log record and tells the hooks.
func (r *run) skip(rec *skiplog.Record) {
	// One URL, one form: a URL a sitemap lists as written and a page
	// links to is one URL to the backend's one-record-per-URL rule.
	if c, err := frontier.Canonicalize(rec.URL); err == nil {
		rec.URL = c
	}
	if rec.Authority == "" {
		if a, err := frontier.Authority(rec.URL); err == nil {
			rec.Authority = a
		}
	}
	if !r.sess.Record(rec) {
		return // the URL has its record, from this run or an earlier one
	}
	r.stats.Skipped(rec)
	r.fails.Saw(rec)
	r.sess.Count(backend.Event{Kind: backend.Skipped, Authority: rec.Authority, Reason: rec.Reason})
	r.c.hooks.skipped.raise(rec)
}

// drain accounts for every URL still queued when the crawl stops.
func (r *run) drain(ctx context.Context) {
	err := r.front.Drain(ctx, func(req *frontier.Request) {
		if rec := r.robots.UnreachableRecord(req); rec != nil {
			r.skip(rec)
			return
		}
		r.skip(&skiplog.Record{URL: req.URL, Authority: req.Authority(), Reason: skiplog.Interrupted,
			Depth: req.Depth, Referrer: req.Referrer, Detail: "the crawl stopped before this URL was fetched"})
	})
	if err != nil {
		r.cfg.logger.Error("drain", "error", err)
	}
}

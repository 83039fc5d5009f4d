// Package inventory lists the URLs a site's sitemaps declare, each with
// heed's robots.txt verdict for it, without fetching a single page: the
// library behind `heed inventory`.
//
// # The model
//
// For each site it reads robots.txt and the sitemaps it lists (or
// /sitemap.xml when it lists none), follows sitemap indexes with
// sitemap.Walk, and hands every listed URL to the caller as a Row: its
// lastmod in RFC 3339 UTC beside the value as written (an invalid one is
// flagged, not dropped), changefreq and priority as written, the sitemap
// that listed it, and whether robots.txt allows it, with the deciding
// line, rule and group. An inventory made for several agents
// (NewForAgents: Googlebot, Bingbot, GPTBot for an SEO audit) gives each
// row one verdict per agent from the same robots.txt fetch. The Summary
// adds the lastmod statistics (oldest, newest, per year, missing,
// invalid) and, for several agents, each one's counts. A URL on another authority gets that
// authority's verdict when the sitemap scope admits it (WithSitemapScope
// "any"); a URL outside its sitemap's scope (by default any other
// authority) is a row with problem out-of-scope and reason sitemap-scope,
// and its authority is never contacted, not even for robots.txt: no
// sitemap can make heed send requests to hosts and ports nobody asked for.
//
// Sitemap fetches are requests like a crawl's: they pass heed's robots
// stage and are paced per authority (the floor of WithDelay, or a larger
// Crawl-delay), so a sitemap robots.txt disallows is never fetched; it is
// written to the skip log and reported in the summary. Sites are read one
// after another in the order given, so rows come in a stable order: sites
// in order, a robots.txt's Sitemap lines in file order, an index's
// sitemaps as listed.
//
// The verdict is middleware.DecideRobots's, the one the crawl's robots
// stage makes, and a sitemap's redirects follow middleware.RedirectHop,
// the crawl's rule: an inventory and a crawl never disagree on a URL.
//
// # Options
//
// The crawler's Options configure it (crawler.ResolveSettings reads
// them): WithUserAgent, WithDelay, WithMaxCrawlDelay, WithTimeout, WithRetries, WithRobotsMaxAge,
// WithRobotsGiveUp, WithRobotsMaxBytes, WithTransport, WithSkipLog,
// WithLogger, WithClock, WithWorkers (robots.txt files fetched at once),
// and the sitemap options WithSitemaps, WithSitemapFallback,
// WithSitemapSince, WithSitemapInclude, WithSitemapExclude,
// WithSitemapFollow, WithSitemapLimits and WithSitemapScope. Entries the
// filters refuse are skip-logged as sitemap-filter and are not rows; the
// others do not apply.
//
// # Limits
//
// Sites are read one after another; robots.txt files several at once
// (WithWorkers). An authority's robots.txt is read once per inventory and
// decides for all its rows. Rows are handed to the caller as they come;
// the summary keeps the first 10,000 disallowed and duplicate URLs one by
// one and counts the rest.
package inventory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/sitemap"
	"github.com/heedcrawl/heed/skiplog"
)

// Inventory lists the URLs a site's sitemaps declare, each with heed's
// robots.txt verdict for it, without fetching a single page: the library
// behind `heed inventory`. Make one with New.
type Inventory struct {
	cfg    *crawler.Settings
	agents []string // the verdict columns: cfg.Agent first

	started   atomic.Int64 // unix nanoseconds
	sitemaps  atomic.Int64
	rows      atomic.Int64
	forbidden atomic.Int64
	ran       atomic.Bool
}

// New returns an inventory that reads robots.txt for the product token
// agent, configured by the crawler's options, with the checks of
// crawler.ResolveSettings: agent names with digits (MJ12bot) are accepted
// as real robots.txt files write them, since the inventory sends no page
// request.
func New(agent string, opts ...crawler.Option) (*Inventory, error) {
	return NewForAgents([]string{agent}, opts...)
}

// NewForAgents returns an inventory whose rows carry one verdict per
// product token of agents (an SEO audit's Googlebot, Bingbot, GPTBot):
// Row.Verdicts, in the order given. The first agent is the inventory's
// own: its User-Agent fetches robots.txt and the sitemaps, its verdict
// decides which sitemaps may be read, and it fills the row's Allowed,
// Reason, Line, Rule and Group. Each authority's robots.txt is still
// fetched once, and answers for every agent. A token given twice (in any
// case) counts once.
func NewForAgents(agents []string, opts ...crawler.Option) (*Inventory, error) {
	if len(agents) == 0 {
		return nil, errors.New("inventory: no agent")
	}
	cfg, err := crawler.ResolveSettings(agents[0], opts...)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{cfg: cfg}
	for _, a := range agents {
		if !robots.MatchableToken(a) {
			return nil, fmt.Errorf("inventory: %q is not a valid product token (letters, '-' and '_' only; digits accepted as in MJ12bot)", a)
		}
		if !slices.ContainsFunc(inv.agents, func(b string) bool { return strings.EqualFold(a, b) }) {
			inv.agents = append(inv.agents, a)
		}
	}
	return inv, nil
}

// Agents returns the product tokens the rows carry a verdict for, the
// inventory's own first.
func (inv *Inventory) Agents() []string { return slices.Clone(inv.agents) }

// Row is one URL a sitemap lists and heed's verdict on it.
type Row struct {
	// URL is the listed URL in heed's canonical form (as written when it
	// is not a valid URL).
	URL string `json:"url"`
	// LastMod is the entry's lastmod in RFC 3339, in UTC
	// ("2025-01-02T08:00:00Z"; a date alone is its midnight UTC), and
	// LastModRaw the value as the sitemap wrote it. A lastmod that is not
	// a W3C datetime has LastMod "", its text in LastModRaw and
	// LastModInvalid set (and is counted in the summary's LastMod).
	LastMod        string `json:"lastmod,omitempty"`
	LastModRaw     string `json:"lastmod_raw,omitempty"`
	LastModInvalid bool   `json:"lastmod_invalid,omitempty"`
	// ChangeFreq and Priority are as the sitemap wrote them (Priority
	// with at least one decimal); "" when absent.
	ChangeFreq string `json:"changefreq,omitempty"`
	Priority   string `json:"priority,omitempty"`
	// Sitemap is the URL of the sitemap that lists URL.
	Sitemap string `json:"sitemap"`
	// RobotsReport is heed's robots.txt verdict for the inventory's own
	// agent (its Agent left empty), from the robots.txt of the URL's own
	// authority. When Allowed is false, Reason says why:
	// robots-disallow, robots-unreachable, sitemap-scope for a URL
	// outside the sitemap's scope, or invalid-url for a URL that cannot
	// be fetched at all (these two with no robots.txt asked).
	middleware.RobotsReport
	// Problem is the sitemap package's problem with the entry
	// (out-of-scope, invalid-url, loc-too-long); "" for a sound entry.
	Problem string `json:"problem,omitempty"`
	// Duplicate is true when an earlier row listed the same URL.
	Duplicate bool `json:"duplicate,omitempty"`
	// Usage is the AI usage preference robots.txt states for the URL
	// (Content-Usage rules; the inventory fetches no page, so headers do
	// not count): each category with a y or n and its deciding line,
	// "train-ai=n (line 4); search=y (line 9)". Empty when every category
	// is unknown or the URL may not be crawled.
	Usage string `json:"usage,omitempty"`
	// Verdicts are the verdicts for each agent of an inventory made for
	// several (NewForAgents), in their order, the inventory's own first;
	// nil for an inventory of one agent, whose verdict is the row's.
	Verdicts []Verdict `json:"agents,omitempty"`
}

// Verdict is robots.txt's answer for one agent on a row's URL, its
// Agent set: the same report as the row's own verdict.
type Verdict = middleware.RobotsReport

// Columns are the CSV columns of a Row of an inventory of one agent, in
// the order Fields writes them. The order is part of heed's output
// format; ColumnsFor gives those of an inventory of several agents.
var Columns = []string{
	"url", "lastmod", "lastmod_raw", "changefreq", "priority", "sitemap",
	"allowed", "reason", "line", "rule", "group", "robots_url", "problem", "duplicate", "usage",
}

// ColumnsFor returns the CSV columns of an inventory made for agents:
// Columns, then for each agent (when there are several) a column named
// by the agent, with its verdict (Verdict.Outcome: "allowed" or the
// reason), and one named "AGENT rule" with its deciding rule
// (Verdict.Evidence).
func ColumnsFor(agents []string) []string {
	cols := slices.Clone(Columns)
	if len(agents) > 1 {
		for _, a := range agents {
			cols = append(cols, a, a+" rule")
		}
	}
	return cols
}

// Fields returns the row's values in ColumnsFor order, for CSV:
// booleans as true/false, Line empty when 0, Group joined with spaces.
func (r Row) Fields() []string {
	line := ""
	if r.Line > 0 {
		line = strconv.Itoa(r.Line)
	}
	f := []string{
		r.URL, r.LastMod, r.LastModRaw, r.ChangeFreq, r.Priority, r.Sitemap,
		strconv.FormatBool(r.Allowed), string(r.Reason), line, r.Rule, strings.Join(r.Group, " "),
		r.RobotsURL, r.Problem, strconv.FormatBool(r.Duplicate), r.Usage,
	}
	for _, v := range r.Verdicts {
		f = append(f, v.Outcome(), v.Evidence())
	}
	return f
}

// Progress is a live count of an inventory's work.
type Progress struct {
	Sitemaps   int64 // sitemaps read so far
	URLs       int64 // rows delivered so far
	Disallowed int64 // rows robots.txt does not allow
	Elapsed    time.Duration
}

// Progress returns the counts so far; safe to call while Run runs.
func (inv *Inventory) Progress() Progress {
	p := Progress{Sitemaps: inv.sitemaps.Load(), URLs: inv.rows.Load(), Disallowed: inv.forbidden.Load()}
	if s := inv.started.Load(); s != 0 {
		p.Elapsed = time.Since(time.Unix(0, s))
	}
	return p
}

// SitemapStatusError is the error of a sitemap fetch answered with a
// status other than 2xx (after redirects).
type SitemapStatusError struct {
	URL    string
	Status int
}

func (e *SitemapStatusError) Error() string {
	return fmt.Sprintf("sitemap %s: status %d", e.URL, e.Status)
}

// errReadBefore marks a sitemap listed again for a later site: it was
// read, and its rows written, under the first.
var errReadBefore = errors.New("already read for an earlier site")

// maxPolls bounds the waits of one fetch (pacing, robots.txt retries,
// request retries); each wait is bounded by its own schedule.
const maxPolls = 10_000

// Run reads the sitemaps of sites (URLs; only their authority counts) and
// of the sitemaps given with WithSitemaps, and calls visit with each
// listed URL. It returns the summary and the first error visit returned,
// or the context's error if ctx ended first (the summary then says
// Interrupted). A sitemap that cannot be read is not an error: it is in
// the summary (and, when robots.txt or a fetch failure excluded it, in the
// skip log). Run may be called once.
func (inv *Inventory) Run(ctx context.Context, sites []string, visit func(Row) error) (*Summary, error) {
	if !inv.ran.CompareAndSwap(false, true) {
		return nil, errors.New("inventory: Run may be called once")
	}
	inv.started.Store(time.Now().UnixNano())
	iv, err := inv.newInventoryRun(ctx)
	if err != nil {
		return nil, err
	}
	defer iv.robots.Close()
	defer func() {
		if err := iv.skips.Err(); err != nil {
			inv.cfg.Logger.Error("skip log", "error", err)
		}
	}()
	sum := iv.sum
	entries := iv.resolveSites(ctx, sites)
	for i := range sum.Sites {
		if ctx.Err() != nil {
			break
		}
		site := &sum.Sites[i]
		e := entries[i]
		if e == nil {
			continue
		}
		site.RobotsURL, site.RobotsState, site.RobotsStatus, site.RobotsErr = e.URL, e.State.String(), e.Status, e.Err
		roots := e.Sitemaps
		if len(roots) == 0 {
			if inv.cfg.Sitemaps.NoFallback {
				continue
			}
			roots, site.Fallback = []string{site.Authority + "/sitemap.xml"}, true
		}
		site.Sitemaps = roots
		if err := iv.walk(ctx, site.Authority, roots, site.Fallback, visit); err != nil {
			return iv.finish(err)
		}
	}
	if given := inv.cfg.Sitemaps.URLs; len(given) > 0 && ctx.Err() == nil {
		if err := iv.walk(ctx, "", given, false, visit); err != nil {
			return iv.finish(err)
		}
	}
	return iv.finish(ctx.Err())
}

// inventoryRun is one Run's wiring and state.
type inventoryRun struct {
	inv    *Inventory
	cfg    *crawler.Settings
	pacer  *politeness.Pacer
	robots *middleware.Robots
	chain  middleware.Fetcher
	skips  *skiplog.Writer
	giveUp time.Duration

	sum   *Summary
	read  map[string]bool                 // canonical sitemap URLs fetched
	seen  map[frontier.Fingerprint]string // listed URL -> first sitemap
	dupBy map[string]int                  // sitemap -> rows listed before
}

// newInventoryRun wires a Run on ctx, the Run's.
func (inv *Inventory) newInventoryRun(ctx context.Context) (*inventoryRun, error) {
	cfg := inv.cfg
	pacer, err := politeness.New(politeness.WithFloor(cfg.Floor), politeness.WithConcurrency(1),
		politeness.WithMaxCrawlDelay(cfg.MaxCrawlDelay), politeness.WithLogger(cfg.Logger))
	if err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	fetch := &middleware.HTTPFetcher{
		Client:    &http.Client{Transport: cfg.Transport, Timeout: cfg.Timeout},
		UserAgent: cfg.UserAgent, StreamSitemaps: true,
	}
	iv := &inventoryRun{
		inv: inv, cfg: cfg, pacer: pacer,
		skips: skiplog.NewWriter(cfg.SkipLog, skiplog.WithClock(cfg.Now)),
		sum:   &Summary{},
		read:  map[string]bool{}, seen: map[frontier.Fingerprint]string{}, dupBy: map[string]int{},
	}
	pace := middleware.Politeness(pacer)
	policy := cfg.Robots
	policy.OtherAgents = inv.agents[1:]
	iv.giveUp = cmp.Or(policy.GiveUpAfter, middleware.DefaultRobotsGiveUp)
	policy.GiveUpAfter = iv.giveUp
	policy.OnFetched = func(e *middleware.RobotsEntry) {
		if err := pacer.SetCrawlDelay(ctx, e.Authority, e.CrawlDelay()); err != nil {
			cfg.Logger.Warn("crawl-delay over the cap: authority excluded", "authority", e.Authority, "error", err)
		}
	}
	iv.robots = middleware.NewRobots(pace(fetch), policy)
	iv.chain = middleware.Chain(fetch, iv.robots.Stage(), pace, cfg.Retry.Stage())
	return iv, nil
}

// resolveSites lists the sites in the summary, one per authority, and
// fetches their robots.txt files, several at once (each authority is
// still paced). It returns each site's entry; nil for a site that is not
// a URL or when ctx ended.
func (iv *inventoryRun) resolveSites(ctx context.Context, sites []string) []*middleware.RobotsEntry {
	seen := map[string]bool{}
	for _, s := range sites {
		auth, err := frontier.Authority(strings.TrimSpace(s))
		site := Site{Site: s, Authority: auth}
		if err != nil {
			site.Err = err.Error()
		} else if seen[auth] {
			continue
		}
		seen[auth] = true
		iv.sum.Sites = append(iv.sum.Sites, site)
	}
	entries := make([]*middleware.RobotsEntry, len(iv.sum.Sites))
	sem := make(chan struct{}, iv.cfg.Workers)
	var wg sync.WaitGroup
	for i := range iv.sum.Sites {
		if iv.sum.Sites[i].Err != "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			e, err := iv.entry(ctx, iv.sum.Sites[i].Authority)
			if err != nil {
				iv.sum.Sites[i].Err = err.Error()
				return
			}
			entries[i] = e
		}(i)
	}
	wg.Wait()
	return entries
}

// entry returns an authority's robots.txt entry, waiting out pacing and
// an unreachable robots.txt's retries until heed gives up on it.
func (iv *inventoryRun) entry(ctx context.Context, auth string) (*middleware.RobotsEntry, error) {
	for range maxPolls {
		e, err := iv.robots.Entry(ctx, auth)
		var de *middleware.DeferError
		switch {
		case errors.As(err, &de):
			if err := middleware.SleepUntil(ctx, de.Until); err != nil {
				return nil, err
			}
			continue
		case err != nil:
			return nil, err
		case e.State == middleware.RobotsUnreachable && !e.GaveUp(iv.giveUp):
			if err := middleware.SleepUntil(ctx, e.RetryAt); err != nil {
				return nil, err
			}
			continue
		}
		return e, nil
	}
	return nil, fmt.Errorf("robots.txt of %s: still not known after %d tries", auth, maxPolls)
}

// walk reads one site's sitemaps and delivers their rows.
func (iv *inventoryRun) walk(ctx context.Context, site string, roots []string, fallback bool, visit func(Row) error) error {
	isRoot := map[string]bool{}
	for _, r := range roots {
		if c, err := frontier.Canonicalize(r); err == nil {
			isRoot[c] = true
		}
	}
	fetch := func(ctx context.Context, sitemapURL string) (io.ReadCloser, error) {
		return iv.fetchSitemap(ctx, sitemapURL, isRoot)
	}
	sm := iv.cfg.Sitemaps
	rep, err := sitemap.Walk(ctx, roots, fetch, func(e sitemap.Entry) error {
		return iv.row(ctx, e, visit)
	}, sitemap.WithScope(sm.Scope), sitemap.WithMaxDepth(sm.MaxDepth), sitemap.WithMaxSitemaps(sm.PerAuthority))
	iv.account(site, rep, fallback)
	return err
}

// row turns one listed entry into a row, with its verdict, and delivers it.
func (iv *inventoryRun) row(ctx context.Context, e sitemap.Entry, visit func(Row) error) error {
	if e.Problem == "" {
		if why := iv.cfg.Sitemaps.Refuses(e); why != "" {
			iv.sum.Filtered++
			iv.skip(&skiplog.Record{URL: e.Loc, Reason: skiplog.SitemapFilter, Referrer: e.Sitemap,
				Detail: fmt.Sprintf("listed in %s line %d: %s", e.Sitemap, e.Line, why)})
			return nil
		}
	}
	row := Row{URL: e.Loc, LastModRaw: e.LastModRaw, ChangeFreq: e.ChangeFreq, Priority: discovery.FormatPriority(e),
		Sitemap: e.Sitemap, Problem: string(e.Problem)}
	row.LastMod, row.LastModInvalid = NormalizeLastMod(e.LastModRaw, e.LastMod)
	if c, err := frontier.Canonicalize(e.Sitemap); err == nil {
		row.Sitemap = c
	}
	canon, err := frontier.Canonicalize(e.Loc)
	if err != nil || e.Problem == sitemap.ProblemInvalidURL || e.Problem == sitemap.ProblemLocTooLong {
		row.Reason = skiplog.InvalidURL
		if row.Problem == "" {
			row.Problem = string(sitemap.ProblemInvalidURL)
		}
	} else if e.Problem == sitemap.ProblemOutOfScope {
		// A sitemap may not widen the inventory: a URL it lists outside
		// its scope is reported as such, and its authority is never
		// contacted (not even for robots.txt), so that no sitemap can make
		// heed send requests to hosts and ports nobody asked for.
		row.URL, row.Reason = canon, skiplog.SitemapScope
	} else {
		row.URL = canon
		if err := iv.verdict(ctx, &row); err != nil {
			return err
		}
	}
	if len(iv.inv.agents) > 1 && row.Verdicts == nil {
		// A URL heed would not ask any robots.txt about: the same
		// answer for every agent.
		for _, a := range iv.inv.agents {
			row.Verdicts = append(row.Verdicts, Verdict{Agent: a, Reason: row.Reason})
		}
	}
	iv.count(&row)
	return visit(row)
}

// verdict fills a row's robots.txt verdict from its own authority's file.
func (iv *inventoryRun) verdict(ctx context.Context, row *Row) error {
	auth, err := frontier.Authority(row.URL)
	if err != nil {
		row.Reason = skiplog.InvalidURL
		return nil
	}
	// The file as first read decides for the whole inventory: refetching
	// it here could wait on the authority's slot, which the sitemap being
	// read holds until it is closed.
	e, ok := iv.robots.Cached(auth)
	if !ok || (e.State == middleware.RobotsUnreachable && !e.GaveUp(iv.giveUp)) {
		if e, err = iv.entry(ctx, auth); err != nil {
			return err
		}
	}
	row.RobotsURL = e.URL
	u, err := url.Parse(row.URL)
	if err != nil {
		row.Reason = skiplog.InvalidURL
		return nil
	}
	for i, agent := range iv.inv.agents {
		ea, ok := e.For(agent)
		if !ok {
			return fmt.Errorf("inventory: robots.txt of %s was not read for %s", auth, agent)
		}
		v := middleware.DecideRobots(ea, u, iv.giveUp).Report()
		if i == 0 {
			row.RobotsReport = v
			if e.State == middleware.RobotsAvailable {
				row.Usage = middleware.UsageSummary(e, u)
			}
		}
		if len(iv.inv.agents) > 1 {
			v.Agent = agent
			row.Verdicts = append(row.Verdicts, v)
		}
	}
	return nil
}

func (iv *inventoryRun) skip(rec *skiplog.Record) {
	if rec.Authority == "" {
		if a, err := frontier.Authority(rec.URL); err == nil {
			rec.Authority = a
		}
	}
	if err := iv.skips.Write(rec); err != nil {
		iv.cfg.Logger.Error("skip log", "error", err)
	}
}

func (iv *inventoryRun) finish(err error) (*Summary, error) {
	iv.sum.Skipped = iv.skips.Summary()
	iv.sum.SkipLog = iv.cfg.SkipLog != nil
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		iv.sum.Interrupted = true
	}
	if err == nil {
		if werr := iv.skips.Err(); werr != nil {
			err = fmt.Errorf("inventory: skip log: %w", werr)
		}
	}
	return iv.sum, err
}

package crawler

import (
	"context"
	"regexp"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/sitemap"
	"github.com/heedcrawl/heed/skiplog"
)

// Sitemap discovery and reading live in package discovery; these options
// configure it for a crawl, and these names keep its results where a
// spider author looks for them.

// Keys of the Meta a page listed in a sitemap carries to its callbacks:
// r.Meta(crawler.MetaLastMod) is the page's <lastmod> as written.
const (
	MetaSitemap    = discovery.MetaSitemap
	MetaLastMod    = discovery.MetaLastMod
	MetaChangeFreq = discovery.MetaChangeFreq
	MetaPriority   = discovery.MetaPriority
)

// sitemapEngine is the run as the sitemap reader's discovery.Engine.
type sitemapEngine run

func (e *sitemapEngine) Enqueue(ctx context.Context, reqs []*frontier.Request) []frontier.PushResult {
	return (*run)(e).enqueueAll(ctx, reqs)
}
func (e *sitemapEngine) Skip(rec *skiplog.Record) { (*run)(e).skip(rec) }
func (e *sitemapEngine) Fetched(authority string, status, bytes int) {
	e.stats.Fetched(authority, status, bytes)
}
func (e *sitemapEngine) Redirect(ctx context.Context, resp *middleware.Response) {
	(*run)(e).redirect(ctx, resp)
}
func (e *sitemapEngine) Robots(authority string) (*middleware.RobotsEntry, bool) {
	return e.robots.Cached(authority)
}

// sitemapCut ends the lease of a sitemap whose reading the stop cut, the
// pages it lists past the cut unknown: a backend that keeps its queue
// (Pause, Leave) takes it back, to be read again from its start; a crawl
// that drains its queue skip-logs it, with what was read.
func (r *run) sitemapCut(ctx context.Context, cut *discovery.Interrupted) {
	req := cut.Request
	if r.sess.Stop() != backend.Drain {
		err := r.front.Retry(ctx, req, time.Time{})
		if err == nil {
			return
		}
		r.cfg.logger.Error("sitemap cut by the stop not requeued", "url", req.URL, "error", err)
	}
	r.skip(cut.Record())
	r.done(ctx, req)
}

// WithSitemaps reads these sitemaps (a urlset, a sitemap index, a text
// sitemap, an RSS or Atom feed, gzipped or not) and queues the pages they
// list, whatever else the crawl does. Their hosts join the allowed domains
// when the crawl has none configured, like the seeds' hosts.
func WithSitemaps(urls ...string) Option {
	return func(c *config) { c.sitemaps.URLs = append(c.sitemaps.URLs, urls...) }
}

// WithSitemapDiscovery reads the sitemaps of every authority the crawl
// visits: the Sitemap lines of its robots.txt, read when the robots stage
// fetches it, or /sitemap.xml when the file lists none (see
// WithSitemapFallback). Off by default: discovery widens a link-following
// crawl to every page a site lists, which is a choice, as Scrapy's
// SitemapSpider is.
func WithSitemapDiscovery() Option { return func(c *config) { c.sitemaps.Discover = true } }

// WithSitemapFallback says whether discovery tries /sitemap.xml on an
// authority whose robots.txt lists no sitemap (default true). A missing
// /sitemap.xml costs one request that answers 404; it is not skip-logged.
func WithSitemapFallback(on bool) Option {
	return func(c *config) { c.sitemaps.NoFallback = !on }
}

// WithSitemapSeeds makes Run's seeds name sites rather than pages: for
// each seed's authority heed reads robots.txt and the sitemaps it lists
// (or /sitemap.xml), and the pages they list seed the crawl. The seed URLs
// themselves are not fetched unless a sitemap lists them. Discovery is
// done for the seeds' authorities only, unless WithSitemapDiscovery asks
// for it everywhere. Together with registering no link-following callback,
// it is heed's sitemaps-only crawl (`heed crawl --sitemaps-only`).
func WithSitemapSeeds() Option { return func(c *config) { c.sitemaps.Seeds = true } }

// WithSitemapSince queues only the sitemap entries whose lastmod is at or
// after t; older ones are skip-logged with reason sitemap-filter and their
// lastmod in the detail. Entries without a lastmod, or with one heed
// cannot read, are kept: nothing says they are old.
func WithSitemapSince(t time.Time) Option { return func(c *config) { c.sitemaps.Since = t } }

// WithSitemapInclude queues only the sitemap entries whose URL matches at
// least one pattern; the others are skip-logged as sitemap-filter. It
// filters what sitemaps list, not links: use WithInclude for both.
func WithSitemapInclude(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.sitemaps.Include = append(c.sitemaps.Include, patterns...) }
}

// WithSitemapExclude refuses the sitemap entries whose URL matches any
// pattern (skip-logged as sitemap-filter); it wins over WithSitemapInclude.
func WithSitemapExclude(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.sitemaps.Exclude = append(c.sitemaps.Exclude, patterns...) }
}

// WithSitemapFollow reads only the sitemaps whose URL matches at least one
// pattern among those robots.txt and sitemap indexes list (Scrapy's
// sitemap_follow); the others are skip-logged as sitemap-filter. Sitemaps
// given with WithSitemaps and the /sitemap.xml fallback are always read.
func WithSitemapFollow(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.sitemaps.Follow = append(c.sitemaps.Follow, patterns...) }
}

// WithSitemapRule sends the pages a sitemap lists whose URL matches
// pattern to the handler named callback (see Crawler.Handle; "" is the
// default handler), like Scrapy's sitemap_rules. Rules are tried in the
// order given and the first match wins. Once any rule is set, an entry
// that matches none is not queued (skip-logged as sitemap-filter); add a
// last rule with an empty pattern to keep the rest.
func WithSitemapRule(pattern *regexp.Regexp, callback string) Option {
	return func(c *config) {
		c.sitemaps.Rules = append(c.sitemaps.Rules, discovery.Rule{Pattern: pattern, Callback: callback})
	}
}

// WithSitemapLimits bounds sitemap reading: maxDepth levels of index below
// a sitemap found in robots.txt or given (default discovery.DefaultDepth; 0
// reads those sitemaps only), and maxPerAuthority sitemaps read from one
// authority (default discovery.DefaultPerAuthority). Sitemaps past a limit are
// skip-logged as sitemap-limit. A negative maxDepth, or a maxPerAuthority
// of 0 or less, keeps that default.
func WithSitemapLimits(maxDepth, maxPerAuthority int) Option {
	return func(c *config) {
		c.sitemaps.MaxDepth, c.sitemaps.DepthSet, c.sitemaps.PerAuthority = maxDepth, true, maxPerAuthority
	}
}

// WithSitemapScope sets which URLs a sitemap may list (default
// sitemap.ScopeAuthority: its own scheme, host and port). Entries outside
// it are skip-logged as sitemap-scope. sitemap.ScopeNone leaves the
// decision to the crawl's allowed domains, for sites whose sitemaps mix
// http and https or list a sister host.
func WithSitemapScope(s sitemap.Scope) Option { return func(c *config) { c.sitemaps.Scope = s } }

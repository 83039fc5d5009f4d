package crawler

import (
	"regexp"
	"time"

	"github.com/heedcrawl/heed/sitemap"
)

// Keys of the Meta a page listed in a sitemap carries to its callbacks:
// r.Meta(crawler.MetaLastMod) is the page's <lastmod> as written.
const (
	// MetaSitemap is the URL of the sitemap that listed the page.
	MetaSitemap = "sitemap"
	// MetaLastMod is the <lastmod> as written in the sitemap (RSS pubDate,
	// Atom updated); absent when the sitemap gave none.
	MetaLastMod = "lastmod"
	// MetaChangeFreq is the <changefreq>, lower-cased.
	MetaChangeFreq = "changefreq"
	// MetaPriority is the <priority>, written with at least one decimal
	// ("1.0", "0.85"); absent when the sitemap gave none.
	MetaPriority = "priority"
)

// Defaults of the sitemap limits; see WithSitemapLimits.
const (
	// DefaultSitemapDepth is how many levels of sitemap index heed follows
	// below a sitemap found in robots.txt or given by the user.
	DefaultSitemapDepth = sitemap.DefaultMaxDepth
	// DefaultSitemapsPerAuthority is how many sitemaps heed reads from one
	// authority in one crawl.
	DefaultSitemapsPerAuthority = sitemap.DefaultMaxSitemaps
)

// sitemapConfig is what the sitemap options set.
type sitemapConfig struct {
	urls       []string
	discover   bool
	noFallback bool
	seeds      bool
	since      time.Time
	include    []*regexp.Regexp
	exclude    []*regexp.Regexp
	follow     []*regexp.Regexp
	rules      []sitemapRule
	maxDepth   int
	depthSet   bool
	perAuth    int
	scope      sitemap.Scope
}

// sitemapRule maps sitemap URLs to a named handler, as Scrapy's
// sitemap_rules do.
type sitemapRule struct {
	pattern  *regexp.Regexp
	callback string
}

func (c *sitemapConfig) defaults() {
	if !c.depthSet || c.maxDepth < 0 {
		c.maxDepth = DefaultSitemapDepth
	}
	if c.perAuth <= 0 {
		c.perAuth = DefaultSitemapsPerAuthority
	}
}

// WithSitemaps reads these sitemaps (a urlset, a sitemap index, a text
// sitemap, an RSS or Atom feed, gzipped or not) and queues the pages they
// list, whatever else the crawl does. Their hosts join the allowed domains
// when the crawl has none configured, like the seeds' hosts.
func WithSitemaps(urls ...string) Option {
	return func(c *config) { c.sitemaps.urls = append(c.sitemaps.urls, urls...) }
}

// WithSitemapDiscovery reads the sitemaps of every authority the crawl
// visits: the Sitemap lines of its robots.txt, read when the robots stage
// fetches it, or /sitemap.xml when the file lists none (see
// WithSitemapFallback). Off by default: discovery widens a link-following
// crawl to every page a site lists, which is a choice, as Scrapy's
// SitemapSpider is.
func WithSitemapDiscovery() Option { return func(c *config) { c.sitemaps.discover = true } }

// WithSitemapFallback says whether discovery tries /sitemap.xml on an
// authority whose robots.txt lists no sitemap (default true). A missing
// /sitemap.xml costs one request that answers 404; it is not skip-logged.
func WithSitemapFallback(on bool) Option {
	return func(c *config) { c.sitemaps.noFallback = !on }
}

// WithSitemapSeeds makes Run's seeds name sites rather than pages: for
// each seed's authority heed reads robots.txt and the sitemaps it lists
// (or /sitemap.xml), and the pages they list seed the crawl. The seed URLs
// themselves are not fetched unless a sitemap lists them. Discovery is
// done for the seeds' authorities only, unless WithSitemapDiscovery asks
// for it everywhere. Together with registering no link-following callback,
// it is heed's sitemaps-only crawl (`heed crawl --sitemaps-only`).
func WithSitemapSeeds() Option { return func(c *config) { c.sitemaps.seeds = true } }

// WithSitemapSince queues only the sitemap entries whose lastmod is at or
// after t; older ones are skip-logged with reason sitemap-filter and their
// lastmod in the detail. Entries without a lastmod, or with one heed
// cannot read, are kept: nothing says they are old.
func WithSitemapSince(t time.Time) Option { return func(c *config) { c.sitemaps.since = t } }

// WithSitemapInclude queues only the sitemap entries whose URL matches at
// least one pattern; the others are skip-logged as sitemap-filter. It
// filters what sitemaps list, not links: use WithInclude for both.
func WithSitemapInclude(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.sitemaps.include = append(c.sitemaps.include, patterns...) }
}

// WithSitemapExclude refuses the sitemap entries whose URL matches any
// pattern (skip-logged as sitemap-filter); it wins over WithSitemapInclude.
func WithSitemapExclude(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.sitemaps.exclude = append(c.sitemaps.exclude, patterns...) }
}

// WithSitemapFollow reads only the sitemaps whose URL matches at least one
// pattern among those robots.txt and sitemap indexes list (Scrapy's
// sitemap_follow); the others are skip-logged as sitemap-filter. Sitemaps
// given with WithSitemaps and the /sitemap.xml fallback are always read.
func WithSitemapFollow(patterns ...*regexp.Regexp) Option {
	return func(c *config) { c.sitemaps.follow = append(c.sitemaps.follow, patterns...) }
}

// WithSitemapRule sends the pages a sitemap lists whose URL matches
// pattern to the handler named callback (see Crawler.Handle; "" is the
// default handler), like Scrapy's sitemap_rules. Rules are tried in the
// order given and the first match wins. Once any rule is set, an entry
// that matches none is not queued (skip-logged as sitemap-filter); add a
// last rule with an empty pattern to keep the rest.
func WithSitemapRule(pattern *regexp.Regexp, callback string) Option {
	return func(c *config) {
		c.sitemaps.rules = append(c.sitemaps.rules, sitemapRule{pattern: pattern, callback: callback})
	}
}

// WithSitemapLimits bounds sitemap reading: maxDepth levels of index below
// a sitemap found in robots.txt or given (default DefaultSitemapDepth; 0
// reads those sitemaps only), and maxPerAuthority sitemaps read from one
// authority (default DefaultSitemapsPerAuthority). Sitemaps past a limit are
// skip-logged as sitemap-limit. A negative maxDepth, or a maxPerAuthority
// of 0 or less, keeps that default.
func WithSitemapLimits(maxDepth, maxPerAuthority int) Option {
	return func(c *config) {
		c.sitemaps.maxDepth, c.sitemaps.depthSet, c.sitemaps.perAuth = maxDepth, true, maxPerAuthority
	}
}

// WithSitemapScope sets which URLs a sitemap may list (default
// sitemap.ScopeAuthority: its own scheme, host and port). Entries outside
// it are skip-logged as sitemap-scope. sitemap.ScopeNone leaves the
// decision to the crawl's allowed domains, for sites whose sitemaps mix
// http and https or list a sister host.
func WithSitemapScope(s sitemap.Scope) Option { return func(c *config) { c.sitemaps.scope = s } }

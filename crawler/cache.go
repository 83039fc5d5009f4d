package crawler

import (
	"fmt"
	"net/http"

	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/httpcache"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
)

// WithHTTPCache puts an HTTP cache in the crawl's chain (see package
// httpcache): responses are stored, and served again as its policy says.
// The cache sits below the scope, robots and budget stages and above
// politeness, so a stored response is never served for a URL the
// robots.txt in force disallows, and one served from the cache passes no
// pacer: a crawl replayed from a cache of Replay policy reaches the site
// zero times, robots.txt included while it is younger than 24 hours.
// A page served from the cache spends the page budget (WithMaxPages,
// WithMaxPagesPerHost) as a fetched page does; a page the cache sends on
// to the site spends it only once pacing lets it through, so a URL the
// politeness stage excludes spends nothing, as without a cache.
// Stats counts the responses served from it (CacheHits).
//
//	store, err := httpcache.OpenDir(".heed-cache") // httpcache.WithMaxBytes(n) bounds its size
//	cache, err := httpcache.New(store) // Replay; WithPolicy(httpcache.RFC9111{}) for HTTP's rules, WithMaxAge to expire
//	c, err := crawler.New("ExampleBot", crawler.WithHTTPCache(cache))
func WithHTTPCache(cache *httpcache.Cache) Option { return func(c *config) { c.cache = cache } }

// WithAutoThrottle adapts each authority's interval to the latency of its
// responses, as Scrapy's AutoThrottle does; the floor (WithDelay) and the
// Crawl-delay stay lower bounds. See politeness.AutoThrottle for the
// formula and the defaults of its zero fields. A crawl shared through
// Redis refuses it (its pacer keeps no latency).
func WithAutoThrottle(at politeness.AutoThrottle) Option {
	return func(c *config) { c.autoThrottle = &at }
}

// WithoutCookies turns the cookie jar off: no response's Set-Cookie is
// kept and no request carries a cookie but those a spider sets in its own
// headers.
func WithoutCookies() Option { return func(c *config) { c.noCookies = true } }

// WithCookies presets cookies for the authority of rawURL (a session
// cookie copied from a browser, a consent cookie), as if that authority
// had set them: like every cookie in heed's jar they are sent to that
// authority only. An unparseable rawURL makes New fail.
func WithCookies(rawURL string, cookies ...*http.Cookie) Option {
	return func(c *config) {
		c.cookies = append(c.cookies, download.Cookies{URL: rawURL, Cookies: cookies})
	}
}

// checkDevLoop validates the preset cookies' URLs.
func (c *config) checkDevLoop() error {
	if err := c.downloadConfig(nil).Check(); err != nil {
		return fmt.Errorf("crawler: WithCookies: %w", err)
	}
	return nil
}

// cacheStage is the HTTP cache's stage, with served around the serving
// of a stored response (see httpcache.Cache.StageServing), or a stage
// that passes requests on when the crawl has no cache.
func (r *run) cacheStage(served middleware.Stage) middleware.Stage {
	if r.cfg.cache == nil {
		return func(next middleware.Fetcher) middleware.Fetcher { return next }
	}
	return r.cfg.cache.StageServing(served)
}

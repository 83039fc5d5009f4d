package crawler

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
)

// Settings are what a crawler's Options resolve to, heed's defaults
// applied and the product token and User-Agent checked as New checks
// them: for the packages that build on the crawl's options without
// running a crawl (package inventory reads sitemaps with them). The
// settings no such package reads (scope, budgets, backends) are left out.
type Settings struct {
	// Agent is the product token; UserAgent the header sent.
	Agent, UserAgent string
	// Workers is WithWorkers; Floor WithDelay; MaxCrawlDelay
	// WithMaxCrawlDelay; Timeout WithTimeout; MaxRedirects
	// WithMaxRedirects.
	Workers                       int
	Floor, MaxCrawlDelay, Timeout time.Duration
	MaxRedirects                  int
	// Transport is WithTransport's, or heed's default transport.
	Transport http.RoundTripper
	// SkipLog is WithSkipLog's writer (nil without it); Logger and Now
	// are WithLogger's and WithClock's.
	SkipLog io.Writer
	Logger  *slog.Logger
	Now     func() time.Time
	// Sitemaps are the sitemap options, their defaults applied: the
	// sitemaps given, the fallback, the limits and scope, and the filters
	// (discovery.Config.Refuses, Follows).
	Sitemaps *discovery.Config
	// Robots is the robots stage's policy (WithRobotsMaxAge,
	// WithRobotsGiveUp, WithRobotsMaxBytes, WithRobotsFetchers, the clock
	// and the logger); the caller adds its hooks to a copy.
	Robots middleware.RobotsPolicy
	// Retry is the retry stage (WithRetries).
	Retry *middleware.Retry
}

// ResolveSettings applies opts to heed's defaults for the product token
// agent, refusing what New refuses of a User-Agent. The token may hold
// digits as real robots.txt files write them (MJ12bot,
// robots.MatchableToken), since a package that builds on the settings may
// send no page request; New refuses such a token for a crawl.
func ResolveSettings(agent string, opts ...Option) (*Settings, error) {
	if !robots.MatchableToken(agent) {
		return nil, fmt.Errorf("crawler: %q is not a valid product token (letters, '-' and '_' only; digits accepted as in MJ12bot)", agent)
	}
	cfg, err := resolve(agent, opts)
	if err != nil {
		return nil, err
	}
	cfg.sitemaps.Defaults()
	return &Settings{
		Agent: agent, UserAgent: cfg.userAgent, Workers: cfg.workers, Floor: cfg.floor,
		MaxCrawlDelay: cfg.maxDelay, Timeout: cfg.timeout, MaxRedirects: cfg.maxRedirect,
		Transport: cmp.Or[http.RoundTripper](cfg.transport, download.DefaultTransport()),
		SkipLog:   cfg.skipOut, Logger: cfg.logger, Now: cfg.now,
		Sitemaps: &cfg.sitemaps, Robots: cfg.robotsPolicy(agent), Retry: cfg.retry(),
	}, nil
}

// resolve applies opts to the defaults and checks the User-Agent, as New
// and ResolveSettings do (each checks the token first).
func resolve(agent string, opts []Option) (*config, error) {
	cfg := &config{}
	for _, o := range opts {
		o(cfg)
	}
	cfg.defaults()
	if cfg.userAgent == "" {
		cfg.userAgent = download.DefaultUserAgent(agent)
	}
	if err := download.CheckUserAgent(cfg.userAgent, agent); err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	if err := cfg.checkHeaders(); err != nil {
		return nil, err
	}
	if len(cfg.headers) > 0 {
		cfg.transport = &middleware.Headers{Next: cmp.Or[http.RoundTripper](cfg.transport, download.DefaultTransport()), Headers: cfg.headers}
	}
	return cfg, nil
}

// robotsPolicy is the robots stage's policy of the options.
func (c *config) robotsPolicy(agent string) middleware.RobotsPolicy {
	return middleware.RobotsPolicy{
		Agent:       agent,
		MaxAge:      c.robotsMaxAge,
		MaxBytes:    c.robotsMaxByte,
		RetryBase:   c.robotsRetry,
		GiveUpAfter: c.robotsGiveUp,
		Fetchers:    cmp.Or(c.robotsFetchers, middleware.DefaultRobotsFetchers),
		Now:         c.now,
		Logger:      c.logger,
	}
}

// retry is the retry stage of the options.
func (c *config) retry() *middleware.Retry {
	retry := middleware.DefaultRetry()
	retry.MaxRetries, retry.Base = c.retries, c.retryBase
	retry.Logger = c.logger
	return retry
}

package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"
)

// collyUserAgent is the peer's User-Agent; every generated robots.txt has
// only a "*" group, so both crawlers get the same rules.
const collyUserAgent = "Mozilla/5.0 (compatible; CollyPeer/1.0)"

// crawlColly crawls the seeds with a bare colly v2 async collector set up
// the way a colly user would for a polite crawl of the same site:
// robots.txt honoured (colly's own check, on temoto/robotstxt), the same
// allowed domains, a[href] followed, at most PerHost requests in flight
// per host and Workers in all (the shared transport's budget), and a
// visited set that lets no URL through twice (onceStorage).
func crawlColly(ctx context.Context, spec childSpec, sends *sendLog) (childResult, error) {
	c := colly.NewCollector(
		colly.Async(true),
		colly.AllowedDomains(spec.Domains...),
		colly.UserAgent(collyUserAgent),
		colly.StdlibContext(ctx),
	)
	c.IgnoreRobotsTxt = false
	c.WithTransport(newTransport(spec.PerHost, spec.Workers, sends))
	c.SetRequestTimeout(requestTimeout)
	switch spec.CollyVisited {
	case "", "once":
		if err := c.SetStorage(&onceStorage{}); err != nil {
			return childResult{}, fmt.Errorf("colly: %w", err)
		}
	case "colly":
		// colly's default InMemoryStorage, already in place.
	default:
		return childResult{}, fmt.Errorf("colly: unknown visited set %q (once or colly)", spec.CollyVisited)
	}
	rules, err := collyLimits(spec)
	if err != nil {
		return childResult{}, err
	}
	if err := c.Limits(rules); err != nil {
		return childResult{}, fmt.Errorf("colly: %w", err)
	}

	var pages, errs, skipped atomic.Int64
	visit := func(err error) {
		var already *colly.AlreadyVisitedError
		switch {
		case err == nil, errors.As(err, &already):
		case errors.Is(err, colly.ErrRobotsTxtBlocked), errors.Is(err, colly.ErrForbiddenDomain):
			skipped.Add(1)
		default:
			errs.Add(1)
		}
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		visit(e.Request.Visit(e.Attr("href")))
	})
	c.OnResponse(func(*colly.Response) { pages.Add(1) })
	c.OnError(func(*colly.Response, error) { errs.Add(1) })

	start := time.Now()
	for _, s := range spec.Seeds {
		visit(c.Visit(s))
	}
	c.Wait()
	elapsed := time.Since(start)
	return childResult{
		CrawlSeconds: elapsed.Seconds(),
		Start:        start,
		End:          start.Add(elapsed),
		Pages:        pages.Load(),
		Errors:       errs.Load(),
		Skipped:      skipped.Load(),
		Interrupted:  ctx.Err() != nil,
	}, nil
}

// collyLimits returns colly's limit rules. A colly LimitRule's
// Parallelism is one semaphore shared by every domain the rule matches
// (http_backend.go: one waitChan per rule), so DomainGlob "*" with
// Parallelism 8 allows 8 requests in flight over all hosts together, not
// 8 per host. "per-host" therefore gives each authority a rule of its own;
// "star" is the single "*" rule, kept to show the difference.
func collyLimits(spec childSpec) ([]*colly.LimitRule, error) {
	switch spec.CollyLimit {
	case "", "per-host":
		seen := map[string]bool{}
		var rules []*colly.LimitRule
		for _, s := range spec.Seeds {
			u, err := url.Parse(s)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("colly: seed %q is not an absolute URL", s)
			}
			if seen[u.Host] {
				continue
			}
			seen[u.Host] = true
			// colly matches rules against URL.Host, port included; a
			// literal host:port is a glob that matches only itself.
			rules = append(rules, &colly.LimitRule{DomainGlob: u.Host, Parallelism: spec.PerHost})
		}
		return rules, nil
	case "star":
		return []*colly.LimitRule{{DomainGlob: "*", Parallelism: spec.PerHost}}, nil
	}
	return nil, fmt.Errorf("colly: unknown limit mode %q (per-host or star)", spec.CollyLimit)
}

// onceStorage is colly's visited set made race-free. colly checks a URL
// with IsVisited and records it with Visited, two calls with nothing held
// between them (colly.go, requestCheck), so under async load two
// goroutines that find the same link both see "not visited" and both
// fetch it; a mutex inside each call, which colly's InMemoryStorage
// already has, cannot close that window. onceStorage makes IsVisited a
// test-and-set under one lock, which leaves Visited nothing to do. colly
// calls IsVisited only after its domain and robots.txt checks, so a URL
// is marked only when it is about to be fetched. Cookies are kept the way
// colly's own storage keeps them.
type onceStorage struct {
	storage.InMemoryStorage
	mu   sync.Mutex
	seen map[uint64]struct{}
}

// Init implements storage.Storage.
func (s *onceStorage) Init() error {
	s.mu.Lock()
	if s.seen == nil {
		s.seen = make(map[uint64]struct{})
	}
	s.mu.Unlock()
	return s.InMemoryStorage.Init()
}

// IsVisited reports whether id was seen before and marks it seen.
func (s *onceStorage) IsVisited(id uint64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[id]; ok {
		return true, nil
	}
	s.seen[id] = struct{}{}
	return false, nil
}

// Visited does nothing: IsVisited has already recorded id.
func (s *onceStorage) Visited(uint64) error { return nil }

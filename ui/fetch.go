package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// The tester's bounds on a robots.txt it fetches for a visitor.
const (
	// DefaultFetchBytes is the most of a body the tester reads (and the
	// most of a pasted file): the parse limit, 500 KiB, with room to say
	// what lies past it.
	DefaultFetchBytes = 1 << 20
	// DefaultFetchTimeout bounds one fetch, redirects included.
	DefaultFetchTimeout = 10 * time.Second
	// FetchRedirects is how many redirects a fetch follows (RFC 9309
	// §2.3.1.2: at least five).
	FetchRedirects = 5
)

// errScheme refuses a URL the tester will not fetch.
var errScheme = errors.New("only http and https robots.txt URLs are fetched")

// checkFetchURL says whether the tester may fetch raw: an absolute http(s)
// URL with a host.
func checkFetchURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q: %w", raw, errScheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q has no host", raw)
	}
	return u, nil
}

// schemeGuard refuses every request that is not http(s) before it reaches
// the downloader (FetchRobots's redirect rule refuses them too; this
// keeps the promise whatever that rule becomes).
type schemeGuard struct{ next middleware.Fetcher }

func (g schemeGuard) Fetch(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
	if _, err := checkFetchURL(req.URL); err != nil {
		return nil, err
	}
	return g.next.Fetch(ctx, req)
}

// fetchRobots fetches a robots.txt for the tester with RFC 9309's
// semantics, within the tester's bounds.
func (s *Server) fetchRobots(ctx context.Context, raw string) (*middleware.RobotsFetch, error) {
	u, err := checkFetchURL(raw)
	if err != nil {
		return nil, &testerError{err.Error()}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/robots.txt" // a site given: its robots.txt
	}
	// The client's timeout ends a slow hop first, as a network error: RFC
	// 9309's unreachable. The context bounds the redirects together.
	ctx, cancel := context.WithTimeout(ctx, s.fetchTimeout*(FetchRedirects+1))
	defer cancel()
	fetch := schemeGuard{&middleware.HTTPFetcher{Client: s.client, UserAgent: s.userAgent, MaxBody: DefaultFetchBytes}}
	rf, err := middleware.FetchRobots(ctx, fetch, u.String(), FetchRedirects, s.now)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	return rf, nil
}

package middleware

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sync/atomic"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// Scope decides which discovered URLs belong to the crawl at all: allowed
// domains, include and exclude URL patterns, and the maximum depth. Its
// Check is cheap and is asked when a URL is admitted to the frontier (after
// deduplication, so each excluded URL is recorded once); as a Stage it
// guards the chain against requests that reach it by another way.
// Sitemaps are checked against the domains only; Include, Exclude and
// MaxDepth apply to pages.
type Scope struct {
	// Domains lists the allowed domains. A URL is in scope when its host
	// equals one of them or is a subdomain of one ("example.com" allows
	// "www.example.com"). IP addresses must match exactly. Empty: any host.
	Domains []string
	// Include, when not empty, admits only URLs matching at least one
	// pattern.
	Include []*regexp.Regexp
	// Exclude refuses URLs matching any pattern; it wins over Include.
	Exclude []*regexp.Regexp
	// MaxDepth refuses requests deeper than it; 0 means no limit.
	MaxDepth int

	// domains is Domains made ready for matching, rebuilt when Domains
	// is replaced by another slice (its elements are not to be changed
	// in place once Check has been asked).
	domains atomic.Pointer[domainSet]
}

// MetaNoRule is the Meta key of a link the spider's link rules refused
// (crawler.LinkRule, package linkrule): Check rejects such a request with reason no-rule and
// the value as detail. The link goes through the frontier like any other
// so that a URL refused on many pages has one record, as every exclusion
// does.
const MetaNoRule = "heed.no-rule"

// Check returns nil when req is in scope, or the *skiplog.Record that
// excludes it.
func (s *Scope) Check(req *frontier.Request) error {
	host, ok := hostname(req.URL)
	if !ok {
		_, err := url.Parse(req.URL)
		return s.record(req, skiplog.InvalidURL, fmt.Sprintf("cannot parse URL: %v", err))
	}
	if len(s.Domains) > 0 && !s.domainAllowed(host) {
		return s.record(req, skiplog.Offsite, fmt.Sprintf("host %s is not in the allowed domains", host))
	}
	if why, ok := req.Meta[MetaNoRule]; ok && req.Kind == frontier.KindPage {
		return s.record(req, skiplog.NoRule, why)
	}
	if req.Kind != frontier.KindPage {
		// URL patterns and depth describe pages: a sitemap's Depth counts
		// index levels, and the pages it lists meet the patterns when
		// they are queued.
		return nil
	}
	for _, re := range s.Exclude {
		if re.MatchString(req.URL) {
			return s.record(req, skiplog.Filter, "matches exclude pattern "+re.String())
		}
	}
	if len(s.Include) > 0 {
		ok := false
		for _, re := range s.Include {
			if re.MatchString(req.URL) {
				ok = true
				break
			}
		}
		if !ok {
			return s.record(req, skiplog.Filter, "matches no include pattern")
		}
	}
	if s.MaxDepth > 0 && req.Depth > s.MaxDepth {
		return s.record(req, skiplog.Depth, fmt.Sprintf("depth %d is over the limit of %d", req.Depth, s.MaxDepth))
	}
	return nil
}

func (s *Scope) domainAllowed(host string) bool {
	ds := s.domains.Load()
	if ds == nil || !ds.builtFrom(s.Domains) {
		ds = newDomainSet(s.Domains)
		s.domains.Store(ds)
	}
	return ds.allows(host)
}

func (s *Scope) record(req *frontier.Request, reason skiplog.Reason, detail string) *skiplog.Record {
	return &skiplog.Record{
		URL:       req.URL,
		Authority: req.Authority(),
		Reason:    reason,
		Detail:    detail,
		Depth:     req.Depth,
		Referrer:  req.Referrer,
	}
}

// Stage returns the scope check as a chain stage.
func (s *Scope) Stage() Stage {
	return func(next Fetcher) Fetcher {
		return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			if err := s.Check(req); err != nil {
				return nil, err
			}
			return next.Fetch(ctx, req)
		})
	}
}

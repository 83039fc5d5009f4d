package cli

import (
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/pages"
)

// Pages returns heed's generic spider, the one `heed crawl` runs: it
// follows every link in scope (none with --sitemaps-only, where the
// sitemaps say what to fetch) and, when crawl writes a feed, emits a
// pages.Page for every HTML page it downloads: URL, status, title,
// depth, referrer, size and link count. It has no name: --agent is
// required. An App given no spider crawls with it.
func Pages() crawler.Spider { return &pageSpider{follow: true} }

type pageSpider struct {
	follow bool // follow links (not with --sitemaps-only)
	emit   bool // emit a Page per HTML page (when there is a feed)
}

func (s *pageSpider) Name() string        { return "" }
func (s *pageSpider) StartURLs() []string { return nil }

func (s *pageSpider) Setup(c *crawler.Crawler) error {
	if s.follow {
		c.FollowLinks()
	}
	if s.emit {
		pages.Emit(c)
	}
	return nil
}

// crawlAware is a spider told how crawl was asked to run before its
// Setup: the page spider follows no link with --sitemaps-only and emits
// nothing without a feed.
type crawlAware interface {
	configure(sitemapsOnly, feed bool)
}

func (s *pageSpider) configure(sitemapsOnly, feed bool) { s.follow, s.emit = !sitemapsOnly, feed }

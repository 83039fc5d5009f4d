package main

import (
	"context"
	"fmt"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/skiplog"
)

// heedAgent is the product token heed crawls as.
const heedAgent = "HeedBot"

// crawlHeed crawls the seeds with heed as a user would write it: follow
// a[href], stay on the site's domains, no floor delay (a robots.txt
// Crawl-delay still applies), the shared transport.
func crawlHeed(ctx context.Context, spec childSpec, sends *sendLog) (childResult, error) {
	c, err := crawler.New(heedAgent,
		crawler.WithTransport(newTransport(spec.PerHost, spec.Workers, sends)),
		crawler.WithAllowedDomains(spec.Domains...),
		crawler.WithDelay(0),
		crawler.WithWorkers(spec.Workers),
		crawler.WithConcurrencyPerHost(spec.PerHost),
		crawler.WithTimeout(requestTimeout),
	)
	if err != nil {
		return childResult{}, fmt.Errorf("heed: %w", err)
	}
	c.FollowLinks()
	start := time.Now()
	sum, err := c.Run(ctx, spec.Seeds...)
	elapsed := time.Since(start)
	if err != nil {
		return childResult{}, fmt.Errorf("heed: %w", err)
	}
	return childResult{
		CrawlSeconds: elapsed.Seconds(),
		Start:        start,
		End:          start.Add(elapsed),
		Pages:        sum.Stats.Pages,
		Errors:       int64(sum.Skipped.ByReason[skiplog.FetchError]),
		Skipped:      int64(sum.Skipped.Total),
		Interrupted:  sum.Interrupted,
	}, nil
}

// requestTimeout is one request's timeout for both crawlers (heed's
// default).
const requestTimeout = 30 * time.Second

package crawler_test

import (
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// crawlScenario crawls the whole scenario from its seeds, following links.
func crawlScenario(t *testing.T, extra ...crawler.Option) scenarioResult {
	t.Helper()
	return scenarioCrawl(t, (*testweb.Site).Seeds, func(c *crawler.Crawler) { c.FollowLinks() }, extra...)
}

// TestScenarioMatchesTheOracle crawls the whole scenario and compares
// what was requested, and what was skip-logged with which evidence, with
// the oracle's account.
func TestScenarioMatchesTheOracle(t *testing.T) {
	res := crawlScenario(t)
	exp := res.site.Expected("HeedBot")
	checkRequestsMatchOracle(t, countRequests(res.site), exp)
	checkSkipsMatchOracle(t, skipsByURL(t, res.records), exp.Skipped)
}

// TestScenarioPacing checks invariant 6 at the servers: per authority, the
// gap between consecutive requests (robots.txt included) is never below
// the floor or the host's Crawl-delay.
func TestScenarioPacing(t *testing.T) {
	res := crawlScenario(t)
	byAuth := checkPacing(t, res.site, res.floor)
	delayHost := res.site.Host(testweb.HostDelay).Authority
	if len(byAuth[delayHost]) < 5 {
		t.Fatalf("the delay host was barely crawled: %d requests", len(byAuth[delayHost]))
	}
}

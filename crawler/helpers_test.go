package crawler_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// The helpers every crawl test uses are crawltest's (shared with the
// backends' tests); these names keep the tests short.
const testFloor = crawltest.Floor

var (
	startScenario            = crawltest.StartScenario
	startGenerated           = crawltest.StartGenerated
	testTimings              = crawltest.Timings
	siteOptions              = crawltest.SiteOptions
	everyHost                = crawltest.EveryHost
	run                      = crawltest.Run
	runUntilItems            = crawltest.RunUntilItems
	readSkips                = crawltest.ReadSkips
	readSkipLog              = crawltest.ReadSkipLog
	decodeSkips              = crawltest.DecodeSkips
	skipsByURL               = crawltest.SkipsByURL
	checkSkip                = crawltest.CheckSkip
	checkSkipsMatchOracle    = crawltest.CheckSkipsMatchOracle
	countRequests            = crawltest.CountRequests
	checkRequestsMatchOracle = crawltest.CheckRequestsMatchOracle
	hitURLs                  = crawltest.HitURLs
	startHostile             = crawltest.StartHostile
	checkPacing              = crawltest.CheckPacing
)

// scenarioResult is a finished crawl of the testweb scenario as HeedBot:
// the site, the skip-log records, the summary and, for a sitemap crawl,
// the Meta every page callback saw.
type scenarioResult struct {
	site    *testweb.Site
	records []*skiplog.Record
	sum     crawler.Summary
	floor   time.Duration
	meta    map[string]map[string]string
}

// scenarioCrawl crawls a fresh scenario site from seeds to the end with
// [siteOptions] and extra, once setup has given the crawler its callbacks.
func scenarioCrawl(t *testing.T, seeds func(*testweb.Site) []string, setup func(*crawler.Crawler), extra ...crawler.Option) scenarioResult {
	t.Helper()
	site := startScenario(t)
	var skips bytes.Buffer
	opts := append(append(siteOptions(site), crawler.WithSkipLog(&skips)), extra...)
	c, err := crawler.New("HeedBot", opts...)
	if err != nil {
		t.Fatal(err)
	}
	setup(c)
	sum := run(t, c, seeds(site)...)
	return scenarioResult{site: site, records: readSkips(t, &skips), sum: sum, floor: testFloor}
}

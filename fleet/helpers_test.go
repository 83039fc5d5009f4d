package fleet_test

import "github.com/heedcrawl/heed/internal/crawltest"

// The crawl tests' helpers are crawltest's, shared with the engine's tests.
var (
	checkPacing              = crawltest.CheckPacing
	checkRequestsMatchOracle = crawltest.CheckRequestsMatchOracle
	checkSkipsMatchOracle    = crawltest.CheckSkipsMatchOracle
	countRequests            = crawltest.CountRequests
	readSkips                = crawltest.ReadSkips
	siteOptions              = crawltest.SiteOptions
	skipsByURL               = crawltest.SkipsByURL
	startScenario            = crawltest.StartScenario
)

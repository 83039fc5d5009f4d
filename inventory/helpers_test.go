package inventory_test

import "github.com/heedcrawl/heed/internal/crawltest"

// The crawl tests' helpers are crawltest's, shared with the engine's tests.
const urlsetHead = crawltest.URLSetHead

var (
	urlEntry      = crawltest.URLEntry
	testTimings   = crawltest.Timings
	everyHost     = crawltest.EveryHost
	startScenario = crawltest.StartScenario
	skipsByURL    = crawltest.SkipsByURL
	readSkips     = crawltest.ReadSkips
	checkSkip     = crawltest.CheckSkip
	hitURLs       = crawltest.HitURLs
	startHostile  = crawltest.StartHostile
)

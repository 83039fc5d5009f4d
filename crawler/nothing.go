package crawler

import "github.com/heedcrawl/heed/stats"

// NothingFetched says that a crawl ran to its end without fetching a single
// page although it tried: every URL it meant to fetch failed. It is
// Summary.NothingFetched, and an error whose message says why; package
// stats owns it (stats.NothingFetched, stats.Nothing).
type NothingFetched = stats.NothingFetched

// pagesCounter is implemented by a backend's summary whose job counts
// pages beyond this process's statistics (package fleet's: the pages of
// every process of the crawl), so that a process that fetched nothing
// while the others did is not said to have failed.
type pagesCounter interface {
	FetchedPages() int64
}

// nothingFetched returns what sum says of a crawl that ran to its end
// without fetching a page although it tried, or nil.
func nothingFetched(sum *Summary, first string) *NothingFetched {
	if sum.Interrupted {
		return nil
	}
	if pc, ok := sum.Backend.(pagesCounter); ok && pc.FetchedPages() > 0 {
		return nil
	}
	return stats.Nothing(sum.Stats, sum.Skipped.ByReason, first)
}

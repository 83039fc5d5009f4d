package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/httpcache"
	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// Feeds follow Scrapy's habit that appending and overwriting are said,
// never assumed: --out names a new feed and refuses a file that exists
// and is not empty, unless --append (add the items to its end, as
// Scrapy's -o does) or --overwrite (replace it, as Scrapy's -O does). A
// job kept with --state appends to its feed when it resumes (its earlier
// runs' items are in it), so --overwrite is refused there; a new job
// follows the rule of a crawl without --state.

// outputModeFlags are --append and --overwrite, and --summary-json.
type outputModeFlags struct {
	appendFeed    bool
	overwriteFlag // shared_flags.go
	summaryJSON   string
	resumed       bool // the --state directory holds a job: its feed is continued
}

func (f *outputModeFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.appendFeed, "append", false, "add the items to the end of an existing --out feed (JSON Lines or CSV; a line cut by a crash is repaired), as Scrapy's -o does")
	f.overwriteFlag.register(fs)
	fs.StringVar(&f.summaryJSON, "summary-json", "", "also write the summary as one JSON object to this file (keys: outcome, stats, skipped, sitemaps, fleet, skip_log, items, tls_unverified)")
}

// checkFeedMode refuses what would overwrite a feed silently, or
// append where a feed cannot be appended to, before anything is opened.
func (f *crawlFlags) checkFeedMode() error {
	m := &f.outputModeFlags
	switch {
	case m.appendFeed && m.overwrite:
		return usageError("--append and --overwrite: choose one")
	case (m.appendFeed || m.overwrite) && (f.out == "" || f.out == "-"):
		return usageError("--append and --overwrite are for an --out file")
	}
	m.resumed = f.state != "" && stateHasJob(f.state)
	if m.resumed {
		if m.overwrite {
			return usageError("--overwrite with --state %s: the job has run before and its feed %s holds the items of its earlier runs; resuming appends to it (start a new job in another directory to start a new feed)", f.state, f.out)
		}
		return nil
	}
	if m.appendFeed {
		return f.appendable()
	}
	if m.overwrite {
		return nil
	}
	return refuseExisting("--out", f.out, "add --append to add the items to it, or --overwrite to replace it")
}

// stateHasJob reports whether a state directory holds a job already.
func stateHasJob(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

// appendable refuses --append to a feed that cannot be continued (a
// JSON array, a gzip stream).
func (f *crawlFlags) appendable() error {
	if err := f.resumable(); err != nil {
		return usageError("--append: %v", unwrapExit(err))
	}
	return nil
}

// unwrapExit is the message of an exitError.
func unwrapExit(err error) error {
	if ee, ok := err.(*exitError); ok && ee.err != nil {
		return ee.err
	}
	return err
}

// continues reports whether the feed is appended to (resumed or
// --append) rather than created.
func (m *outputModeFlags) continues(state string) bool {
	return m.appendFeed || (state != "" && !m.overwrite)
}

// summaryDoc is the --summary-json document: the facts of the printed
// summary under stable keys.
type summaryDoc struct {
	// Outcome is complete, incomplete (sitemaps not read to their end),
	// nothing-fetched, interrupted, paused (a --state job, to be
	// resumed), stopped (a --state job stopped with URLs queued), or
	// process-stopped (one process of a --redis fleet).
	Outcome string `json:"outcome"`
	// NothingFetched says why no page could be fetched, when none was.
	NothingFetched string `json:"nothing_fetched,omitempty"`
	// Stats are the crawl's counts (package stats' Snapshot: pages,
	// bytes, statuses, truncated, queued, duplicates, robots, items ...).
	Stats stats.Snapshot `json:"stats"`
	// Skipped counts the skip-log records, by reason and by authority.
	Skipped skippedDoc `json:"skipped"`
	// Sitemaps is what the crawl did with sitemaps.
	Sitemaps discovery.Stats `json:"sitemaps"`
	// Fleet is the whole shared crawl's account, for a --redis process.
	Fleet *fleet.Summary `json:"fleet,omitempty"`
	// Cache is what the HTTP cache (--cache) did in this run: served,
	// revalidated, fetched, expired, stored, pruned, damaged. With
	// --state it counts this run only, where Stats counts the whole job.
	Cache *httpcache.Stats `json:"cache,omitempty"`
	// SkipLog and Items are the files written.
	SkipLog string `json:"skip_log,omitempty"`
	Items   string `json:"items,omitempty"`
	// TLSUnverified is set under --insecure-skip-verify.
	TLSUnverified bool `json:"tls_unverified,omitempty"`
}

type skippedDoc struct {
	Total       int                               `json:"total"`
	Failed      int                               `json:"failed,omitempty"`
	ByReason    map[skiplog.Reason]int            `json:"by_reason"`
	ByAuthority map[string]map[skiplog.Reason]int `json:"by_authority"`
}

// outcome names how the crawl ended, as the summary's first line says.
func outcome(sum crawler.Summary) string {
	if st := jobstate.InfoOf(sum.Backend); st != nil {
		switch {
		case st.Job.Complete:
			return "complete"
		case sum.Interrupted:
			return "paused"
		default:
			return "stopped"
		}
	}
	switch {
	case fleet.SummaryOf(sum.Backend) != nil && sum.Interrupted:
		return "process-stopped"
	case sum.Interrupted:
		return "interrupted"
	case sum.NothingFetched != nil:
		return "nothing-fetched"
	case sum.Sitemaps.Incomplete > 0:
		return "incomplete"
	}
	return "complete"
}

// writeSummaryJSON writes --summary-json, if asked for.
func (f *crawlFlags) writeSummaryJSON(sum crawler.Summary) error {
	if f.summaryJSON == "" {
		return nil
	}
	doc := summaryDoc{
		Outcome: outcome(sum), Stats: sum.Stats, Sitemaps: sum.Sitemaps, Fleet: fleet.SummaryOf(sum.Backend),
		Skipped: skippedDoc{Total: sum.Skipped.Total, Failed: sum.Skipped.Failed,
			ByReason: sum.Skipped.ByReason, ByAuthority: sum.Skipped.ByAuthority},
		SkipLog: f.skipLogPath(), Items: f.out, TLSUnverified: f.insecure,
	}
	if doc.Skipped.ByReason == nil {
		doc.Skipped.ByReason = map[skiplog.Reason]int{}
		doc.Skipped.ByAuthority = map[string]map[skiplog.Reason]int{}
	}
	if sum.NothingFetched != nil {
		doc.NothingFetched = sum.NothingFetched.Error()
	}
	if c := f.cacheFlags.cache; c != nil {
		st := c.Stats()
		doc.Cache = &st
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.summaryJSON, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--summary-json: %w", err)
	}
	return nil
}

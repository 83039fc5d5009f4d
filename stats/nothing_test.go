package stats_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// A crawl that fetched no page is said to have failed only when URLs
// failed: its report counts the authorities and the failures by reason,
// and its message says why in one line. One that fetched a page, or whose
// URLs robots.txt or the scope left unfetched, has no report.
func TestNothingSaysWhyNoPageWasFetched(t *testing.T) {
	unreachable := stats.Snapshot{Authorities: map[string]stats.Authority{"a.test": {Robots: "unreachable"}}}
	half := stats.Snapshot{Authorities: map[string]stats.Authority{"a.test": {Robots: "unreachable"}, "b.test": {Robots: "available"}}}
	for _, tc := range []struct {
		name        string
		snap        stats.Snapshot
		skipped     map[skiplog.Reason]int
		first       string
		nothing     bool
		authorities int
		robots      int
		message     []string
	}{
		{name: "robots.txt unreachable everywhere", snap: unreachable, skipped: map[skiplog.Reason]int{skiplog.RobotsUnreachable: 1}, first: "connection refused",
			nothing: true, authorities: 1, robots: 1, message: []string{"no page was fetched", "robots.txt unreachable for every authority (1)", "robots-unreachable=1", ": connection refused"}},
		{name: "robots.txt unreachable for some", snap: half, skipped: map[skiplog.Reason]int{skiplog.RobotsUnreachable: 2, skiplog.FetchError: 3, skiplog.RobotsDisallow: 4},
			nothing: true, authorities: 2, robots: 1, message: []string{"robots.txt unreachable for 1 of 2 authorities", "every URL failed (fetch-error=3, robots-unreachable=2)"}},
		{name: "every fetch fails", snap: stats.Snapshot{Authorities: map[string]stats.Authority{"a.test": {Robots: "available"}}}, skipped: map[skiplog.Reason]int{skiplog.FetchError: 1}, first: "EOF",
			nothing: true, authorities: 1, message: []string{"no page was fetched: every URL failed (fetch-error=1): EOF"}},
		{name: "robots.txt disallows all", snap: stats.Snapshot{Authorities: map[string]stats.Authority{"a.test": {Robots: "available"}}}, skipped: map[skiplog.Reason]int{skiplog.RobotsDisallow: 5}},
		{name: "a page was fetched", snap: stats.Snapshot{Pages: 1, Authorities: unreachable.Authorities}, skipped: map[skiplog.Reason]int{skiplog.FetchError: 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nf := stats.Nothing(tc.snap, tc.skipped, tc.first)
			if !tc.nothing {
				if nf != nil {
					t.Fatalf("NothingFetched %+v for a crawl that did as told", nf)
				}
				return
			}
			if nf == nil {
				t.Fatal("no NothingFetched")
			}
			if nf.Authorities != tc.authorities || nf.RobotsUnreachable != tc.robots || nf.FirstError != tc.first {
				t.Fatalf("NothingFetched %+v", nf)
			}
			for r, k := range tc.skipped {
				if want := int64(k); stats.IsFailure(r) && nf.Failed[r] != want || !stats.IsFailure(r) && nf.Failed[r] != 0 {
					t.Errorf("Failed[%s] = %d, skipped %d", r, nf.Failed[r], k)
				}
			}
			for _, m := range tc.message {
				if !strings.Contains(nf.Error(), m) {
					t.Errorf("message %q lacks %q", nf.Error(), m)
				}
			}
		})
	}
}

// Failures keeps the error of the first failure among records seen at
// once, and ignores records that are not failures or carry no error.
func TestFailuresKeepsTheFirstFailure(t *testing.T) {
	var f stats.Failures
	f.Saw(&skiplog.Record{Reason: skiplog.RobotsDisallow, Err: "not a failure"})
	f.Saw(&skiplog.Record{Reason: skiplog.FetchError})
	if got := f.First(); got != "" {
		t.Fatalf("First %q before any failure with an error", got)
	}
	f.Saw(&skiplog.Record{Reason: skiplog.HostUnreachable, Err: "dial tcp: connection refused"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.Saw(&skiplog.Record{Reason: skiplog.FetchError, Err: "later"})
		}()
	}
	wg.Wait()
	if got := f.First(); got != "dial tcp: connection refused" {
		t.Fatalf("First %q", got)
	}
}

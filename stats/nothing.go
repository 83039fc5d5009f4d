package stats

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/heedcrawl/heed/skiplog"
)

// failureReasons are the skip reasons that say a URL could not be
// fetched, as opposed to one heed chose not to fetch (a robots.txt rule,
// the scope, the budget): the evidence that a crawl which fetched nothing
// failed rather than obeyed.
var failureReasons = []skiplog.Reason{skiplog.RobotsUnreachable, skiplog.HostUnreachable, skiplog.FetchError}

// NothingFetched says that a crawl ran to its end without fetching a single
// page although it tried: every URL it meant to fetch failed (its
// robots.txt unreachable, its host unreachable, its fetch failed). It is
// crawler.Summary.NothingFetched, and an error: the message says why, in
// one line.
// A crawl that fetched nothing because robots.txt disallowed every URL, or
// because its scope or budget left nothing, has none: it did what it was
// told.
type NothingFetched struct {
	// Authorities counts the authorities the crawl tried;
	// RobotsUnreachable those whose robots.txt was never reached.
	Authorities       int `json:"authorities"`
	RobotsUnreachable int `json:"robots_unreachable"`
	// Failed counts the skip-log records of URLs that could not be
	// fetched, by reason (robots-unreachable, host-unreachable,
	// fetch-error).
	Failed map[skiplog.Reason]int64 `json:"failed"`
	// FirstError is the error of the first such record (a connection
	// refused, a DNS failure, a timeout); empty if it had none.
	FirstError string `json:"first_error,omitempty"`
}

// Error says that no page was fetched, and why.
func (n *NothingFetched) Error() string {
	var why []string
	if n.RobotsUnreachable > 0 {
		if n.RobotsUnreachable == n.Authorities {
			why = append(why, fmt.Sprintf("robots.txt unreachable for every authority (%d)", n.Authorities))
		} else {
			why = append(why, fmt.Sprintf("robots.txt unreachable for %d of %d authorities", n.RobotsUnreachable, n.Authorities))
		}
	}
	reasons := make([]string, 0, len(n.Failed))
	for r, k := range n.Failed {
		reasons = append(reasons, fmt.Sprintf("%s=%d", r, k))
	}
	sort.Strings(reasons)
	if len(reasons) > 0 {
		why = append(why, "every URL failed ("+strings.Join(reasons, ", ")+")")
	}
	msg := "no page was fetched: " + strings.Join(why, "; ")
	if n.FirstError != "" {
		msg += ": " + n.FirstError
	}
	return msg
}

// Failures remembers the first error of a URL that could not be fetched
// (a skip-log record whose reason is a failure), for NothingFetched. The
// zero value is ready; it is safe for concurrent use.
type Failures struct {
	mu    sync.Mutex
	first string
}

// Saw takes note of rec if it is the first failure with an error.
func (f *Failures) Saw(rec *skiplog.Record) {
	if rec.Err == "" || !IsFailure(rec.Reason) {
		return
	}
	f.mu.Lock()
	if f.first == "" {
		f.first = rec.Err
	}
	f.mu.Unlock()
}

// First is the error of the first failure Saw took note of; empty if none.
func (f *Failures) First() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

// IsFailure says whether r is a reason that says a URL could not be
// fetched (robots-unreachable, host-unreachable, fetch-error), as opposed
// to one heed chose not to fetch.
func IsFailure(r skiplog.Reason) bool {
	for _, f := range failureReasons {
		if r == f {
			return true
		}
	}
	return false
}

// Nothing returns what a finished, uninterrupted crawl's counts (snap)
// and skip-log counts by reason (skipped) say of it if it fetched no page
// although it tried, or nil: nil when it fetched a page, and nil when no
// URL failed (robots.txt, the scope or the budget left nothing to fetch).
// first is the first failure's error (Failures.First). Whether the crawl
// was interrupted, or other processes of a shared crawl fetched pages, is
// the caller's to check first.
func Nothing(snap Snapshot, skipped map[skiplog.Reason]int, first string) *NothingFetched {
	if snap.Pages > 0 {
		return nil
	}
	n := &NothingFetched{Failed: map[skiplog.Reason]int64{}, FirstError: first}
	for _, r := range failureReasons {
		if k := int64(skipped[r]); k > 0 {
			n.Failed[r] = k
		}
	}
	if len(n.Failed) == 0 {
		return nil
	}
	for _, as := range snap.Authorities {
		n.Authorities++
		if as.Robots == "unreachable" {
			n.RobotsUnreachable++
		}
	}
	return n
}

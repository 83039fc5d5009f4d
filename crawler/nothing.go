package crawler

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
// Summary.NothingFetched, and an error: the message says why, in one line.
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

// pagesCounter is implemented by a backend's summary whose job counts
// pages beyond this process's statistics (package fleet's: the pages of
// every process of the crawl), so that a process that fetched nothing
// while the others did is not said to have failed.
type pagesCounter interface {
	FetchedPages() int64
}

// failures remembers the first error of a URL that could not be fetched,
// for NothingFetched.
type failures struct {
	mu    sync.Mutex
	first string
}

func (f *failures) saw(rec *skiplog.Record) {
	if rec.Err == "" || !isFailure(rec.Reason) {
		return
	}
	f.mu.Lock()
	if f.first == "" {
		f.first = rec.Err
	}
	f.mu.Unlock()
}

func (f *failures) firstErr() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

func isFailure(r skiplog.Reason) bool {
	for _, f := range failureReasons {
		if r == f {
			return true
		}
	}
	return false
}

// nothingFetched returns what sum says of a crawl that ran to its end
// without fetching a page although it tried, or nil.
func nothingFetched(sum *Summary, first string) *NothingFetched {
	if sum.Interrupted || sum.Stats.Pages > 0 {
		return nil
	}
	if pc, ok := sum.Backend.(pagesCounter); ok && pc.FetchedPages() > 0 {
		return nil
	}
	n := &NothingFetched{Failed: map[skiplog.Reason]int64{}, FirstError: first}
	for _, r := range failureReasons {
		if k := int64(sum.Skipped.ByReason[r]); k > 0 {
			n.Failed[r] = k
		}
	}
	if len(n.Failed) == 0 {
		return nil
	}
	for _, as := range sum.Stats.Authorities {
		n.Authorities++
		if as.Robots == "unreachable" {
			n.RobotsUnreachable++
		}
	}
	return n
}

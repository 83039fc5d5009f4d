package middleware

import (
	"errors"
	"fmt"
	"time"

	"github.com/heedcrawl/heed/robots"
)

// RobotsRecord is one robots.txt fetch in a form that can be stored and
// read back: what a crawl that resumes after a pause or a crash needs to
// rebuild the authority's [RobotsEntry] without fetching the file again.
//
// It keeps the body rather than the parsed rules: [Robots.Restore] parses
// it again, so a resumed crawl decides exactly as the interrupted one did
// (for its own product token, even if that changed), and the fetch time
// and status keep RFC 9309's 24-hour freshness rule and heed's give-up
// clock for an unreachable file running across restarts.
type RobotsRecord struct {
	// Authority, URL, FinalURL and Hops are the entry's.
	Authority string `json:"authority"`
	URL       string `json:"url"`
	FinalURL  string `json:"final_url,omitempty"`
	Hops      int    `json:"hops,omitempty"`
	// FetchedAt is when the fetch ended; Status its last response's
	// status (0 when none arrived); Err its error.
	FetchedAt time.Time `json:"fetched_at"`
	Status    int       `json:"status"`
	Err       string    `json:"error,omitempty"`
	// State is the RobotsState's name: "available", "unavailable" or
	// "unreachable".
	State string `json:"state"`
	// Body is the file as fetched, up to one byte past Limit: enough for
	// the parser to cut it where it cut the original. Only for an
	// available file.
	Body []byte `json:"body,omitempty"`
	// Limit is the parse limit the body was read with.
	Limit int `json:"limit,omitempty"`
	// Truncated is the parser's report on the part of the original body
	// past the limit, which Body no longer holds.
	Truncated *robots.Truncation `json:"truncated,omitempty"`
	// FirstFailure, Failures and RetryAt are the unreachable bookkeeping.
	FirstFailure time.Time `json:"first_failure,omitzero"`
	Failures     int       `json:"failures,omitempty"`
	RetryAt      time.Time `json:"retry_at,omitzero"`
}

// ErrStaleRecord is returned by [Robots.Restore] for a record that cannot
// stand for the file under this stage's policy (it was cut at a lower
// parse limit than the policy's): the file is fetched again instead.
var ErrStaleRecord = errors.New("middleware: robots record was read with a lower parse limit")

// parseLimit is the number of body bytes the policy's parser reads.
func (p *RobotsPolicy) parseLimit() int { return max(p.MaxBytes, robots.DefaultMaxBytes) }

// newRobotsRecord makes the record of a fetch that produced entry e.
func newRobotsRecord(e *RobotsEntry, rf *RobotsFetch, limit int) *RobotsRecord {
	rec := &RobotsRecord{
		Authority: e.Authority, URL: e.URL, FinalURL: e.FinalURL, Hops: e.Hops,
		FetchedAt: e.FetchedAt, Status: e.Status, Err: e.Err, State: e.State.String(),
		FirstFailure: e.FirstFailure, Failures: e.Failures, RetryAt: e.RetryAt,
	}
	if e.State == RobotsAvailable {
		body := rf.Body
		if len(body) > limit+1 {
			body = body[:limit+1]
		}
		rec.Body = append([]byte{}, body...)
		rec.Limit = limit
		if e.Truncated != nil {
			t := *e.Truncated
			rec.Truncated = &t
		}
	}
	return rec
}

// parseRobotsState is the inverse of RobotsState.String.
func parseRobotsState(s string) (RobotsState, bool) {
	for _, st := range []RobotsState{RobotsAvailable, RobotsUnavailable, RobotsUnreachable} {
		if st.String() == s {
			return st, true
		}
	}
	return 0, false
}

// Entry rebuilds the entry the record was made from, parsing the body
// again for agent with the parse limit limit. It does not install it;
// Restore does.
func (rec *RobotsRecord) Entry(agent string, limit int) (*RobotsEntry, error) {
	state, ok := parseRobotsState(rec.State)
	switch {
	case !ok:
		return nil, fmt.Errorf("middleware: robots record for %q: unknown state %q", rec.Authority, rec.State)
	case rec.Authority == "" || rec.URL == "":
		return nil, errors.New("middleware: robots record without an authority or URL")
	case rec.FetchedAt.IsZero():
		return nil, fmt.Errorf("middleware: robots record for %s without a fetch time", rec.Authority)
	case rec.Hops < 0 || rec.Failures < 0 || rec.Limit < 0:
		return nil, fmt.Errorf("middleware: robots record for %s with a negative count", rec.Authority)
	case state == RobotsAvailable && rec.Truncated != nil && rec.Limit < limit:
		return nil, fmt.Errorf("%w: %s was cut at %d bytes, the limit is now %d", ErrStaleRecord, rec.Authority, rec.Limit, limit)
	}
	e := &RobotsEntry{
		Authority: rec.Authority, URL: rec.URL, FinalURL: rec.FinalURL, Hops: rec.Hops,
		FetchedAt: rec.FetchedAt, Status: rec.Status, Err: rec.Err, State: state,
		FirstFailure: rec.FirstFailure, Failures: rec.Failures, RetryAt: rec.RetryAt,
	}
	if e.FinalURL == "" {
		e.FinalURL = e.URL
	}
	if state != RobotsAvailable {
		return e, nil
	}
	e.parse(rec.Body, agent, limit)
	if rec.Truncated != nil && rec.Limit == limit {
		// The body stops a byte past the limit: the parser cuts it where
		// it cut the original, but only the record knows how much the
		// original had beyond.
		t := *rec.Truncated
		e.Truncated = &t
	}
	return e, nil
}

// Restore installs the entry a record describes, parsing its body again
// with the stage's policy, and returns it. A crawl resuming from saved
// state calls it for every record before it starts, so that no robots.txt
// is fetched again before its max age, and an unreachable one keeps its
// give-up clock. It does not call the policy's OnFetched or Save: the
// caller applies what the entry implies (the Crawl-delay) itself. A record
// it cannot use gives an error and installs nothing (the file is then
// fetched when it is next needed).
func (r *Robots) Restore(rec *RobotsRecord) (*RobotsEntry, error) {
	e, err := rec.Entry(r.policy.Agent, r.policy.parseLimit())
	if err != nil {
		return nil, err
	}
	r.Put(e)
	return e, nil
}

package middleware

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
)

// DefaultRobotsGiveUp is how long an authority's robots.txt may stay
// unreachable before heed stops waiting for it and records its URLs as
// robots-unreachable (RobotsPolicy.GiveUpAfter's default).
const DefaultRobotsGiveUp = 10 * time.Minute

// RobotsDecision is heed's robots.txt verdict on one URL, with the
// evidence a skip-log record carries. It is made by DecideRobots, the one
// place where the state of an authority's robots.txt and its rules become
// a verdict: the crawl's robots stage, the sitemap inventory and `heed
// robots check` all decide through it.
type RobotsDecision struct {
	// Allowed says the URL may be fetched.
	Allowed bool
	// Pending says the authority's robots.txt is unreachable and heed has
	// not given up on it yet: the URL is not allowed now, and a crawl waits
	// until Entry.RetryAt instead of recording it. A one-off check reads it
	// as the complete disallow RFC 9309 §2.3.1.4 asks for.
	Pending bool
	// Reason is why the URL is not allowed (robots-disallow, or
	// robots-unreachable once heed gave up or while Pending); "" when it is.
	Reason skiplog.Reason
	// Verdict is the matcher's verdict, with its deciding rule and group,
	// when the file's rules applied (State available); zero otherwise.
	Verdict robots.Verdict
	// Entry is the robots.txt knowledge the decision was made from.
	Entry *RobotsEntry

	giveUp time.Duration // the give-up time the decision was made with
}

// DecideRobots decides u under the authority's robots.txt entry e, by RFC
// 9309's cases: a file that answered 4xx (unavailable) allows everything;
// an unreachable one (5xx, 429, network errors) disallows everything,
// pending until it has been unreachable for giveUpAfter (0 means
// DefaultRobotsGiveUp); an available one decides by its group for heed's
// product token, the longest match winning.
func DecideRobots(e *RobotsEntry, u *url.URL, giveUpAfter time.Duration) RobotsDecision {
	if giveUpAfter <= 0 {
		giveUpAfter = DefaultRobotsGiveUp
	}
	d := RobotsDecision{Entry: e, giveUp: giveUpAfter}
	switch e.State {
	case RobotsUnavailable:
		d.Allowed = true
	case RobotsUnreachable:
		d.Reason, d.Pending = skiplog.RobotsUnreachable, !e.GaveUp(giveUpAfter)
	default:
		d.Verdict = e.Group.DecideURL(u)
		d.Allowed = d.Verdict.Allowed
		if !d.Allowed {
			d.Reason = skiplog.RobotsDisallow
		}
	}
	return d
}

// GaveUp reports whether heed has stopped waiting for an unreachable
// robots.txt: its last fetch failed at least after (0 means
// DefaultRobotsGiveUp) after the first failure of the run of failures, or
// its server asked (with Retry-After) not to be asked again before then.
func (e *RobotsEntry) GaveUp(after time.Duration) bool {
	if after <= 0 {
		after = DefaultRobotsGiveUp
	}
	return e.State == RobotsUnreachable && (e.FetchedAt.Sub(e.FirstFailure) >= after || e.RetryAt.Sub(e.FirstFailure) > after)
}

// Evidence returns the decision's skip-log evidence: the robots.txt URL,
// its fetch time and status, and, when a rule decided, its line, its text
// and the group it came from.
func (d RobotsDecision) Evidence() *skiplog.Robots { return d.Entry.Evidence(d.Verdict) }

// Record returns the skip-log record of req refused by the decision, or
// nil when the decision allows it. A request that is a redirect hop is
// recorded as redirect-blocked rather than robots-disallow.
func (d RobotsDecision) Record(req *frontier.Request) *skiplog.Record {
	if d.Allowed {
		return nil
	}
	e := d.Entry
	rec := &skiplog.Record{URL: req.URL, Authority: e.Authority, Reason: d.Reason,
		Depth: req.Depth, Referrer: req.Referrer, Robots: d.Evidence()}
	switch {
	case d.Reason == skiplog.RobotsUnreachable:
		rec.Status, rec.Err = e.Status, e.Err
		rec.Detail = fmt.Sprintf("robots.txt unreachable since %s (%d tries)", e.FirstFailure.Format(time.RFC3339), e.Failures)
		if d.giveUp > 0 && e.RetryAt.Sub(e.FirstFailure) > d.giveUp {
			rec.Detail += fmt.Sprintf("; the server asked not to be asked again before %s (Retry-After), past the give-up time of %v",
				e.RetryAt.Format(time.RFC3339), d.giveUp)
		}
	case len(req.Redirects) > 0:
		rec.Reason = skiplog.RedirectBlocked
	}
	return rec
}

// SleepUntil waits until t or until ctx ends, returning ctx's error then.
// A time in the past returns at once, with ctx's error if it has ended, so
// that a loop of waits stops with its context.
func SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

package middleware

import "time"

// logFetch logs one robots.txt fetch on the policy's logger. An outage is
// said when it happens: the first failed fetch of an authority is a
// warning naming the next try and the time heed will give up; the retries
// are info; the fetch after which heed gives up is a warning again, and
// the first good fetch after an outage is info. Every other fetch is one
// info record. A record has an error attribute only when there was one.
func (r *Robots) logFetch(fresh, prev *RobotsEntry) {
	log := r.policy.Logger
	if log == nil {
		return
	}
	attrs := []any{"authority", fresh.Authority, "url", fresh.URL}
	if fresh.Status != 0 {
		attrs = append(attrs, "status", fresh.Status)
	}
	if fresh.Err != "" {
		attrs = append(attrs, "error", fresh.Err)
	}
	if fresh.State != RobotsUnreachable {
		attrs = append(attrs, "state", fresh.State.String(), "hops", fresh.Hops)
		if prev != nil && prev.State == RobotsUnreachable {
			log.Info("robots.txt reachable again", append(attrs, "down_for", fresh.FetchedAt.Sub(prev.FirstFailure).Round(time.Millisecond))...)
			return
		}
		log.Info("robots.txt fetched", attrs...)
		return
	}
	giveUp := fresh.FirstFailure.Add(r.policy.GiveUpAfter)
	attrs = append(attrs, "failures", fresh.Failures)
	switch {
	case fresh.GaveUp(r.policy.GiveUpAfter):
		log.Warn("robots.txt unreachable: giving up; the authority's URLs are skipped as robots-unreachable",
			append(attrs, "since", fresh.FirstFailure.UTC())...)
	case fresh.Failures == 1:
		log.Warn("robots.txt unreachable: the authority's URLs wait (complete disallow, RFC 9309 §2.3.1.4)",
			append(attrs, "next_try", fresh.RetryAt.UTC(), "give_up_at", giveUp.UTC())...)
	default:
		log.Info("robots.txt still unreachable",
			append(attrs, "next_try", fresh.RetryAt.UTC(), "give_up_at", giveUp.UTC())...)
	}
}

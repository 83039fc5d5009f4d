package pagepolicy

import (
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

// Links is a crawl's hold on the links its Policy leaves unfollowed:
// Unfollow decides and holds each one (Held), the crawl's admission
// refuses a held link with its record when the crawl ends (Admission),
// and Flush settles the rest. The invariant it keeps: every held link
// ends as a duplicate (the crawl reached it another way) or with exactly
// one record written through Write. Policy and Write must be set before
// use; a Links is safe for concurrent use.
type Links struct {
	// Policy is what the crawl honours.
	Policy Policy
	// Write writes one skip-log record (the crawl's skip log).
	Write func(*skiplog.Record)
	// Held keeps the links held back until Flush.
	Held Held
}

// Unfollow reports whether link, found on the page pageURL whose
// directives are d, is left unfollowed by the policy, and holds it; rel
// is the link's rel attribute when it was followed from its element. A
// link that does not fit in Held has its record written at once (it may
// then also be reached another way and fetched).
func (l *Links) Unfollow(pageURL string, d pagerobots.Directives, link *frontier.Request, rel string) bool {
	rec := l.Policy.Unfollowed(pageURL, d, link, rel)
	if rec == nil {
		return false
	}
	if !l.Held.Hold(link, rec) {
		l.Write(rec)
	}
	return true
}

// Admission wraps the crawl's admission base (the frontier's, see
// frontier.WithAdmit): a held link being pushed by Flush that base
// admits is refused with refused, its record written; one base refuses
// keeps base's refusal and loses its held record, since base accounts
// for it. Any other request is base's.
func (l *Links) Admission(base func(*frontier.Request) error, refused error) func(*frontier.Request) error {
	return func(req *frontier.Request) error {
		rec := l.Held.Take(req)
		if rec == nil {
			if base == nil {
				return nil
			}
			return base(req)
		}
		if base != nil {
			if err := base(req); err != nil {
				return err
			}
		}
		l.Write(rec)
		return refused
	}
}

// Flush settles the held links once no callback runs. push, when not
// nil, pushes one through the crawl's frontier (whose admission is
// Admission) and reports whether it was a duplicate of a URL reached
// another way: the link is then counted by push, not recorded. Every
// other held link the admission did not settle gets its record here (a
// frontier that does not ask the admission, a closed one, or push nil).
func (l *Links) Flush(push func(*frontier.Request) (duplicate bool)) {
	for _, req := range l.Held.Release() {
		if push != nil && push(req) {
			l.Held.Take(req)
			continue
		}
		if rec := l.Held.Take(req); rec != nil {
			l.Write(rec)
		}
	}
	l.Held.Forget()
}

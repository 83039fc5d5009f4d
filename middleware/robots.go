package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
)

// RobotsState is what heed knows of an authority's robots.txt.
type RobotsState uint8

const (
	// RobotsAvailable: robots.txt was fetched (2xx) and its rules apply.
	RobotsAvailable RobotsState = iota + 1
	// RobotsUnavailable: robots.txt answered 4xx, or redirected more than
	// the limit: RFC 9309 §2.3.1.3 allows everything.
	RobotsUnavailable
	// RobotsUnreachable: 5xx, 429, timeout or a network error: RFC 9309
	// §2.3.1.4 requires complete disallow; heed retries with backoff.
	RobotsUnreachable
)

func (s RobotsState) String() string {
	switch s {
	case RobotsAvailable:
		return "available"
	case RobotsUnavailable:
		return "unavailable"
	case RobotsUnreachable:
		return "unreachable"
	}
	return "unknown"
}

// RobotsEntry is the robots stage's knowledge of one authority.
type RobotsEntry struct {
	// Authority is the authority the rules apply to.
	Authority string
	// URL is the authority's robots.txt URL.
	URL string
	// FinalURL is where the file was found after redirects.
	FinalURL string
	// Hops is the number of redirects followed.
	Hops int
	// FetchedAt is when the last fetch ended.
	FetchedAt time.Time
	// Status is the HTTP status of the last fetch's last response; 0 when
	// no response arrived.
	Status int
	// Err is the error of the last fetch, when there was one.
	Err string
	// State says which of RFC 9309's cases applies.
	State RobotsState
	// Group is the group selected for heed's product token; nil unless
	// State is RobotsAvailable.
	Group *robots.Group
	// Sitemaps are the file's Sitemap URLs, resolved.
	Sitemaps []string
	// SkippedLines counts the lines of the file that were not understood,
	// and Truncated says where the file was cut at the parse limit; the
	// full report is robots.Parse's (heed keeps only the counts per
	// authority).
	SkippedLines int
	Truncated    *robots.Truncation

	// Unreachable bookkeeping: when the authority first became
	// unreachable, how many fetches failed in a row, and when to retry.
	FirstFailure time.Time
	Failures     int
	RetryAt      time.Time

	refreshedFor uint64 // the request whose arrival caused this fetch

	// agent is the token Group was selected for; others the groups of
	// the further tokens asked for (RobotsPolicy.OtherAgents), by token
	// in lower case.
	agent  string
	others map[string]*robots.Group
}

// For returns the entry as it stands for the product token agent: the
// same fetch, state and evidence, with the group selected for agent. It
// answers for the entry's own token and for the tokens the entry was
// parsed for besides (RobotsPolicy.OtherAgents, NewRobotsEntry's
// others); ok is false for any other token of an available file, whose
// group was not selected.
func (e *RobotsEntry) For(agent string) (_ *RobotsEntry, ok bool) {
	if e.State != RobotsAvailable || strings.EqualFold(agent, e.agent) {
		return e, true
	}
	g, ok := e.others[strings.ToLower(agent)]
	if !ok {
		return nil, false
	}
	cp := *e
	cp.agent, cp.Group = agent, g
	return &cp, true
}

// CrawlDelay returns the Crawl-delay of the selected group, or 0.
func (e *RobotsEntry) CrawlDelay() time.Duration {
	if e.Group == nil {
		return 0
	}
	d, _ := e.Group.CrawlDelay()
	return d
}

// Evidence returns the skip-log evidence of a verdict under this entry.
func (e *RobotsEntry) Evidence(v robots.Verdict) *skiplog.Robots {
	ev := &skiplog.Robots{URL: e.URL, FetchedAt: e.FetchedAt, Status: e.Status}
	if v.Rule != nil {
		ev.Line = v.Rule.Line
		ev.Rule = v.Rule.Text
	}
	if e.Group != nil {
		m := e.Group.Match()
		for _, a := range m.Agents {
			ev.Group = append(ev.Group, a.Value)
			ev.GroupLines = append(ev.GroupLines, a.Line)
		}
	}
	return ev
}

// RobotsPolicy configures the robots stage.
type RobotsPolicy struct {
	// Agent is heed's product token, which selects the group.
	Agent string
	// OtherAgents are further product tokens whose groups every fetched
	// entry also selects, for RobotsEntry.For: one fetch of an
	// authority's robots.txt answers for several agents (heed inventory's
	// several --agent). Their groups never decide what the stage admits.
	OtherAgents []string
	// MaxAge is how long a fetched robots.txt is used; at most 24 hours
	// (RFC 9309 §2.4), which is also the default.
	MaxAge time.Duration
	// MaxRedirects is how many redirects a robots.txt fetch follows, also
	// to other authorities; default 5 (RFC 9309 §2.3.1.2). More means
	// unavailable.
	MaxRedirects int
	// MaxBytes is the parse limit; default (and minimum) 500 KiB.
	MaxBytes int
	// RetryBase and RetryMax bound the backoff between fetches of an
	// unreachable robots.txt: RetryBase doubling up to RetryMax. Defaults
	// 1 s and 1 min.
	RetryBase, RetryMax time.Duration
	// GiveUpAfter is how long an authority may stay unreachable before
	// heed stops waiting and records its URLs as robots-unreachable.
	// Default 10 minutes.
	GiveUpAfter time.Duration
	// Fetchers, when positive, makes the chain stage fetch robots.txt in a
	// pool of its own of at most that many fetches at once, never in the
	// caller's goroutine (see "No hostage workers" at [Robots]); heed's
	// crawler uses [DefaultRobotsFetchers]. Zero fetches in the caller,
	// as [Robots.Entry] always does.
	Fetchers int
	// AttemptTimeout, when positive, bounds each request of a robots.txt
	// fetch (each redirect hop) on top of the fetcher's own timeout.
	AttemptTimeout time.Duration
	// OnFetched is called after every fetch of a robots.txt, with the new
	// entry (heed's crawler hands the Crawl-delay to its pacer here).
	OnFetched func(e *RobotsEntry)
	// Save, when set, is called after every fetch of a robots.txt, before
	// OnFetched and before the entry decides anything, with the record
	// from which Restore rebuilds the entry: a crawl that keeps its state
	// on disk stores it there. An error is logged; the entry is used all
	// the same.
	Save func(rec *RobotsRecord) error
	// Shared, when set, is a robots.txt cache shared with the other
	// processes of the crawl (see RobotsStore): an entry that is missing
	// or due here is first looked up there, and only the process that
	// takes the authority's lock fetches the file; the others defer their
	// requests until its record is stored. Nil keeps the cache in this
	// process only.
	Shared RobotsStore
	// SharedLockTTL bounds how long a process that died mid-fetch keeps
	// the others waiting for an authority's robots.txt; it should exceed
	// the longest fetch, redirects included. Default 2 minutes.
	SharedLockTTL time.Duration
	// OnLoaded is called with an entry taken from Shared, fetched by
	// another process (heed's crawler applies its Crawl-delay here too,
	// in case that process died before it could).
	OnLoaded func(e *RobotsEntry)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives one record per robots.txt fetch (info), a warning
	// when an authority's robots.txt becomes unreachable and when heed
	// gives up on it (see Robots); nil means none.
	Logger *slog.Logger
}

// Robots is the robots stage: it fetches and caches each authority's
// robots.txt with RFC 9309's status semantics and excludes the URLs the
// selected group disallows.
//
// It fetches robots.txt through its own Fetcher (heed passes the politeness
// stage over the downloader, so robots.txt fetches count against the
// authority's pace). A request whose authority's robots.txt is not known
// yet triggers the fetch; if the authority is not ready, or another request
// is already fetching it, the request is deferred rather than waiting.
//
// # No hostage workers
//
// With [RobotsPolicy].Fetchers set (heed's crawler always sets it), the
// chain stage never makes its caller wait for a robots.txt: the fetch
// (and every retry of an unreachable one) runs in the stage's own pool of
// at most that many fetches, and the request that asked is
// deferred (reason robots-pending) until the file is known; a stale copy
// being refetched makes the authority's requests wait too, so that they
// do not take its slot from the refetch. A host that accepts
// connections and never answers costs the pool one place for one
// timeout per try, never a worker: the workers keep serving the
// authorities whose rules are known. First fetches of an authority go
// before retries of unreachable ones. Close stops the pool.
// [Robots.Entry], for callers with nothing else to do (an inventory row,
// heed robots check), fetches in its caller.
type Robots struct {
	fetch  Fetcher
	policy RobotsPolicy

	mu      sync.Mutex
	entries map[string]*RobotsEntry
	// fetching holds the authorities whose robots.txt is being fetched,
	// with when the fetch was asked for.
	fetching map[string]time.Time
	pool     *robotsPool
}

// NewRobots returns a robots stage fetching robots.txt files through fetch.
func NewRobots(fetch Fetcher, policy RobotsPolicy) *Robots {
	if policy.MaxAge <= 0 || policy.MaxAge > 24*time.Hour {
		policy.MaxAge = 24 * time.Hour
	}
	if policy.MaxRedirects <= 0 {
		policy.MaxRedirects = 5
	}
	if policy.RetryBase <= 0 {
		policy.RetryBase = time.Second
	}
	if policy.RetryMax <= 0 {
		policy.RetryMax = time.Minute
	}
	if policy.GiveUpAfter <= 0 {
		policy.GiveUpAfter = DefaultRobotsGiveUp
	}
	if policy.Now == nil {
		policy.Now = time.Now
	}
	if policy.SharedLockTTL <= 0 {
		policy.SharedLockTTL = 2 * time.Minute
	}
	return &Robots{fetch: fetch, policy: policy, entries: make(map[string]*RobotsEntry),
		fetching: make(map[string]time.Time), pool: newRobotsPool(policy.Fetchers)}
}

// pendingWait is how long a request waits in the frontier while another
// request of its authority fetches robots.txt.
const pendingWait = 50 * time.Millisecond

// Stage returns the robots check as a chain stage.
func (r *Robots) Stage() Stage {
	return func(next Fetcher) Fetcher {
		return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			if err := r.admit(ctx, req, r.pool.size > 0); err != nil {
				return nil, err
			}
			return next.Fetch(ctx, req)
		})
	}
}

// admit returns nil when req may be fetched, a *skiplog.Record when
// robots.txt excludes it, or a *DeferError.
func (r *Robots) admit(ctx context.Context, req *frontier.Request, background bool) error {
	u, err := url.Parse(req.URL)
	if err != nil {
		return &skiplog.Record{URL: req.URL, Reason: skiplog.InvalidURL, Err: err.Error()}
	}
	e, err := r.entry(ctx, req.Authority(), req.Seq, background)
	if err != nil {
		return err
	}
	d := DecideRobots(e, u, r.policy.GiveUpAfter)
	switch {
	case d.Allowed:
		return nil
	case d.Pending:
		return &DeferError{Until: systemTime(r.policy.Now, e.RetryAt), Reason: "robots-unreachable", Status: e.Status}
	}
	return d.Record(req)
}

// UnreachableRecord returns the robots-unreachable record for a request
// whose authority's robots.txt is unreachable now, or nil. A stopping
// crawl uses it to account for the URLs it was still waiting to fetch.
func (r *Robots) UnreachableRecord(req *frontier.Request) *skiplog.Record {
	r.mu.Lock()
	e := r.entries[req.Authority()]
	r.mu.Unlock()
	if e == nil || e.State != RobotsUnreachable {
		return nil
	}
	return RobotsDecision{Entry: e, Reason: skiplog.RobotsUnreachable}.Record(req)
}

// Cached returns the current entry of an authority without fetching.
func (r *Robots) Cached(authority string) (*RobotsEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[authority]
	return e, ok
}

// Entry returns the authority's robots.txt entry, fetching it when it is
// missing, stale, or unreachable and due for a retry. It returns a
// *DeferError when the fetch cannot happen now (the authority is not
// ready, or another request is fetching it and no usable entry exists).
func (r *Robots) Entry(ctx context.Context, authority string) (*RobotsEntry, error) {
	return r.entry(ctx, authority, 0, false)
}

// entry is Entry for the request with sequence number seq. A request
// whose arrival refreshed the entry does not refresh it again when it comes
// back (it was deferred because the refetch took its authority's slot):
// without that, a max age shorter than the authority's interval would let
// robots.txt refetches starve the pages forever.
//
// With background set (the chain stage), a fetch is started in the
// stage's own pool of robots.txt fetchers and the request is answered at
// once: with the stale entry when one may still decide, else with a
// robots-pending deferral. The caller's worker never waits on the network
// for a robots.txt.
func (r *Robots) entry(ctx context.Context, authority string, seq uint64, background bool) (*RobotsEntry, error) {
	now := r.policy.Now()
	r.mu.Lock()
	e := r.entries[authority]
	if !r.due(e, now, seq) {
		r.mu.Unlock()
		return e, nil
	}
	if since, ok := r.fetching[authority]; ok {
		r.mu.Unlock()
		if usable(e) && !background {
			return e, nil // a refetch is under way; the stale copy is still the best knowledge
		}
		return nil, &DeferError{Until: systemNow().Add(pendingFor(now.Sub(since))), Reason: "robots-pending"}
	}
	r.fetching[authority] = now
	r.mu.Unlock()

	if !background {
		return r.refresh(ctx, authority, e, seq)
	}
	started := r.pool.submit(ctx, e == nil || e.State != RobotsUnreachable, func(ctx context.Context) {
		r.refreshWhenReady(ctx, authority, e, seq)
	})
	if !started {
		r.mu.Lock()
		delete(r.fetching, authority)
		r.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errRobotsClosed
	}
	// The authority's requests wait for the file, even with a stale copy
	// at hand: they would otherwise take the authority's slot, one after
	// the other, from the fetch that refreshes it.
	return nil, &DeferError{Until: systemNow().Add(pendingWait), Reason: "robots-pending"}
}

// refreshWhenReady is refresh for the pool: when the authority is not
// ready yet (its pacing), it waits for its turn and tries again, keeping
// the authority marked as fetching meanwhile.
func (r *Robots) refreshWhenReady(ctx context.Context, authority string, e *RobotsEntry, seq uint64) {
	for {
		_, err := r.refresh(ctx, authority, e, seq)
		var de *DeferError
		if !errors.As(err, &de) {
			return
		}
		r.mu.Lock()
		r.fetching[authority] = r.policy.Now()
		r.mu.Unlock()
		// A deferral's Until is on the system clock; the wait is slept a
		// second at most at once.
		wait := min(max(de.Until.Sub(systemNow()), pendingWait), time.Second)
		if SleepUntil(ctx, time.Now().Add(wait)) != nil {
			r.mu.Lock()
			delete(r.fetching, authority)
			r.mu.Unlock()
			return
		}
	}
}

// usable reports whether an entry may decide while it is being refetched:
// any entry but an unreachable one, which decides nothing but waiting.
func usable(e *RobotsEntry) bool { return e != nil && e.State != RobotsUnreachable }

// refresh fetches the authority's robots.txt (through the shared store,
// if any), installs the new entry and tells the policy's callbacks. The
// caller marked the authority as fetching; refresh clears the mark.
func (r *Robots) refresh(ctx context.Context, authority string, e *RobotsEntry, seq uint64) (*RobotsEntry, error) {
	if r.policy.Shared != nil {
		return r.sharedEntry(ctx, authority, e, seq)
	}
	fresh, rf, err := r.fetchEntry(ctx, authority, e)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // closed meanwhile: nobody waits for this entry
	}

	r.mu.Lock()
	delete(r.fetching, authority)
	if err == nil {
		fresh.refreshedFor = seq
		r.entries[authority] = fresh
	}
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	r.fetched(fresh, e, newRobotsRecord(fresh, rf, r.policy.parseLimit()))
	return fresh, nil
}

// fetched tells the policy's hooks of a fresh entry and its record: Save
// stores the record, OnFetched takes the entry, and the fetch is logged
// (logFetch). prev is the entry it replaces, nil for a first fetch.
func (r *Robots) fetched(fresh, prev *RobotsEntry, rec *RobotsRecord) {
	if r.policy.Save != nil {
		if err := r.policy.Save(rec); err != nil && r.policy.Logger != nil {
			r.policy.Logger.Error("robots.txt record not saved", "authority", fresh.Authority, "error", err)
		}
	}
	if r.policy.OnFetched != nil {
		r.policy.OnFetched(fresh)
	}
	r.logFetch(fresh, prev)
}

// due reports whether entry e (nil if none) must be fetched again before
// the request with sequence number seq may use it.
func (r *Robots) due(e *RobotsEntry, now time.Time, seq uint64) bool {
	switch {
	case e == nil:
		return true
	case e.State == RobotsUnreachable && !e.GaveUp(r.policy.GiveUpAfter):
		// Retries follow their own backoff schedule until heed gives up.
		return !now.Before(e.RetryAt)
	default:
		// A file, an unavailable one, or one heed gave up on, is fetched
		// again when it is older than the max age, and never before the
		// time its server asked for with Retry-After.
		return now.Sub(e.FetchedAt) >= r.policy.MaxAge && (seq == 0 || e.refreshedFor != seq) &&
			(e.State != RobotsUnreachable || !now.Before(e.RetryAt))
	}
}

// Put installs an entry, as a durable crawl does when it resumes.
func (r *Robots) Put(e *RobotsEntry) {
	r.mu.Lock()
	r.entries[e.Authority] = e
	r.mu.Unlock()
}

// fetchEntry fetches authority's robots.txt and builds its entry. prev is
// the entry it replaces (for the unreachable bookkeeping). Only a
// *DeferError (the authority is not ready) or the context's error is
// returned as an error; every fetch outcome is an entry, returned with the
// fetch it was made from.
func (r *Robots) fetchEntry(ctx context.Context, authority string, prev *RobotsEntry) (*RobotsEntry, *RobotsFetch, error) {
	fetch := r.fetch
	if d := r.policy.AttemptTimeout; d > 0 {
		fetch = FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
			actx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			resp, err := r.fetch.Fetch(actx, req)
			if err != nil && ctx.Err() == nil && actx.Err() != nil {
				err = fmt.Errorf("robots.txt attempt timed out after %v: %w", d, err)
			}
			return resp, err
		})
	}
	rf, err := FetchRobots(ctx, fetch, authority+"/robots.txt", r.policy.MaxRedirects, r.policy.Now)
	if err != nil {
		return nil, nil, err
	}
	e := NewRobotsEntry(authority, rf, r.policy.Agent, r.policy.MaxBytes, r.policy.OtherAgents...)
	if rf.State == RobotsUnreachable {
		return r.unreachable(e, prev, rf.RetryAfter), rf, nil
	}
	return e, rf, nil
}

// NewRobotsEntry makes an authority's entry from one fetch of its
// robots.txt: for an available file, the group selected for the product
// token agent, parsed with the parse limit maxBytes (at least 500 KiB),
// and the Sitemap lines resolved against where the file was found; the
// groups of the tokens others too, for For. The unreachable bookkeeping
// (failures, retry time) is the robots stage's, not set here.
func NewRobotsEntry(authority string, rf *RobotsFetch, agent string, maxBytes int, others ...string) *RobotsEntry {
	e := &RobotsEntry{Authority: authority, URL: rf.URL, FinalURL: rf.FinalURL, Hops: rf.Hops,
		FetchedAt: rf.FetchedAt, Status: rf.Status, Err: rf.Err, State: rf.State, agent: agent}
	if rf.State == RobotsAvailable {
		e.parse(rf.Body, agent, maxBytes, others...)
	}
	return e
}

// parse fills an available entry from the file's body: the group for
// agent, the counts of the parser's report, and the Sitemap lines
// resolved against where the file was found.
func (e *RobotsEntry) parse(body []byte, agent string, maxBytes int, others ...string) {
	f := robots.Parse(body, robots.WithMaxBytes(maxBytes))
	e.agent, e.Group = agent, f.Group(agent)
	for _, o := range others {
		if e.others == nil {
			e.others = map[string]*robots.Group{}
		}
		e.others[strings.ToLower(o)] = f.Group(o)
	}
	rep := f.Report()
	e.SkippedLines, e.Truncated = len(rep.Skipped), rep.Truncated
	base, _ := url.Parse(e.FinalURL)
	for _, s := range f.ResolveSitemaps(base) {
		e.Sitemaps = append(e.Sitemaps, s.URL)
	}
}

// RobotsFetch is the outcome of fetching one robots.txt URL, classified by
// RFC 9309 §2.3.1.
type RobotsFetch struct {
	// URL is the robots.txt URL asked for; FinalURL where the answer came
	// from after Hops redirects.
	URL, FinalURL string
	Hops          int
	// FetchedAt is when the fetch ended.
	FetchedAt time.Time
	// Status is the last response's HTTP status; 0 when none arrived.
	Status int
	// Err describes a failure (network error, bad redirect).
	Err string
	// RetryAfter is the Retry-After header of a 429 or 503 answer.
	RetryAfter string
	// State is the RFC 9309 case the outcome falls in.
	State RobotsState
	// Body is the file, when State is RobotsAvailable.
	Body []byte
}

// FetchRobots fetches a robots.txt URL through fetch, following up to
// maxRedirects redirects, also to other authorities, and classifies the
// outcome: 2xx available (with the body), 4xx or too many redirects
// unavailable, 5xx, 429, any other status and network errors unreachable.
//
// A *DeferError from fetch for the first request (the authority is not
// ready) is returned as is; for a redirect hop, FetchRobots waits for the
// hop's authority (the one place heed waits on a host, bounded by that
// host's interval). Only that deferral and the context's error are
// returned as errors.
func FetchRobots(ctx context.Context, fetch Fetcher, robotsURL string, maxRedirects int, now func() time.Time) (*RobotsFetch, error) {
	if now == nil {
		now = time.Now
	}
	rf := &RobotsFetch{URL: robotsURL, FinalURL: robotsURL}
	target := robotsURL
	for hop := 0; ; {
		resp, err := fetch.Fetch(ctx, &frontier.Request{URL: target, Kind: frontier.KindRobots})
		var de *DeferError
		if errors.As(err, &de) {
			if hop == 0 {
				return nil, err
			}
			until := de.Until // on the system clock, like every deferral's
			if !until.After(systemNow()) {
				until = systemNow().Add(pendingWait)
			}
			if werr := SleepUntil(ctx, until); werr != nil {
				return nil, werr
			}
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rf.FetchedAt = now()
		if err != nil {
			rf.Status, rf.Err, rf.State = 0, err.Error(), RobotsUnreachable
			return rf, nil
		}
		rf.Status = resp.Status
		switch {
		case resp.Status >= 200 && resp.Status < 300:
			rf.State, rf.Body = RobotsAvailable, resp.Body
			return rf, nil
		case resp.Status >= 300 && resp.Status < 400:
			next, perr := ResolveLocation(target, resp.Header.Get("Location"))
			if perr != nil || hop >= maxRedirects {
				rf.State = RobotsUnavailable
				if perr != nil {
					rf.Err = perr.Error()
				} else {
					rf.Err = fmt.Sprintf("more than %d redirects", maxRedirects)
				}
				return rf, nil
			}
			hop++
			target, rf.FinalURL, rf.Hops = next, next, hop
		case resp.Status >= 400 && resp.Status < 500 && resp.Status != 429:
			rf.State = RobotsUnavailable
			return rf, nil
		default: // 5xx, 429, 1xx
			rf.State = RobotsUnreachable
			rf.RetryAfter = resp.Header.Get("Retry-After")
			return rf, nil
		}
	}
}

func (r *Robots) unreachable(e, prev *RobotsEntry, retryAfter string) *RobotsEntry {
	e.State = RobotsUnreachable
	e.FirstFailure = e.FetchedAt
	e.Failures = 1
	if prev != nil && prev.State == RobotsUnreachable {
		e.FirstFailure = prev.FirstFailure
		e.Failures = prev.Failures + 1
	}
	wait := r.policy.RetryBase << (e.Failures - 1)
	if wait > r.policy.RetryMax || wait <= 0 {
		wait = r.policy.RetryMax
	}
	asked := false
	if ra, ok := politeness.ParseRetryAfter(retryAfter, e.FetchedAt); ok && ra > wait {
		wait, asked = ra, true // the server asked for longer
	}
	e.RetryAt = e.FetchedAt.Add(wait)
	// The last try happens when the give-up time comes, not after it;
	// but a server that asked (Retry-After) not to be asked again before
	// then is not asked: heed gives up at once instead (see GaveUp).
	if deadline := e.FirstFailure.Add(r.policy.GiveUpAfter); e.RetryAt.After(deadline) && deadline.After(e.FetchedAt) && !asked {
		e.RetryAt = deadline
	}
	return e
}

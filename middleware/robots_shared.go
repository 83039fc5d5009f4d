package middleware

import (
	"context"
	"time"
)

// RobotsStore is a robots.txt cache shared by the processes of one crawl
// (heed's Redis backend is one): each authority's latest fetch as a
// [RobotsRecord], and a lock per authority so that one process at a time
// fetches its robots.txt while the others wait for the record. Given to
// the robots stage as [RobotsPolicy].Shared, it makes the whole crawl fetch
// each robots.txt once, decide by the same file, and keep one retry
// schedule for an unreachable one.
//
// The store decides nothing about freshness: the stage compares the
// record's FetchedAt with its max age, as it does for its own entries.
type RobotsStore interface {
	// LoadRobots returns the authority's stored record, or nil and no
	// error when there is none.
	LoadRobots(ctx context.Context, authority string) (*RobotsRecord, error)
	// TryLockRobots takes the authority's fetch lock for ttl without
	// blocking; true means this process fetches the file and then calls
	// StoreRobots (or UnlockRobots if it gives up).
	TryLockRobots(ctx context.Context, authority string, ttl time.Duration) (bool, error)
	// StoreRobots stores rec as its authority's record, unless a record
	// of a later fetch is stored already, and releases this process's
	// lock of the authority.
	StoreRobots(ctx context.Context, rec *RobotsRecord) error
	// UnlockRobots releases this process's lock of the authority.
	UnlockRobots(ctx context.Context, authority string) error
}

const (
	// sharedPendingWait is how long a request waits in the frontier while
	// another process fetches its authority's robots.txt.
	sharedPendingWait = 200 * time.Millisecond
	// sharedUnavailableWait is how long a request waits while the shared
	// store cannot be reached and nothing is known of the authority.
	sharedUnavailableWait = time.Second
)

// sharedEntry is entry with a shared store, for an entry e (nil if none)
// that is due. The caller marked the authority as fetching in this
// process; sharedEntry clears the mark.
func (r *Robots) sharedEntry(ctx context.Context, authority string, e *RobotsEntry, seq uint64) (*RobotsEntry, error) {
	defer func() {
		r.mu.Lock()
		delete(r.fetching, authority)
		r.mu.Unlock()
	}()
	sh := r.policy.Shared
	now := r.policy.Now()
	// Another process may have fetched the file since this one looked.
	cur, err := r.loadShared(ctx, authority, e)
	if err != nil {
		return r.sharedFailed(ctx, authority, e, "read", err)
	}
	if cur != e && !r.due(cur, now, seq) {
		return cur, nil
	}
	e = cur
	locked, err := sh.TryLockRobots(ctx, authority, r.policy.SharedLockTTL)
	if err != nil {
		return r.sharedFailed(ctx, authority, e, "lock", err)
	}
	if !locked {
		// Another process is fetching it: its record will do.
		if e != nil && e.State != RobotsUnreachable {
			return e, nil // the stale copy is still the best knowledge
		}
		return nil, &DeferError{Until: systemNow().Add(sharedPendingWait), Reason: "robots-pending"}
	}
	unlock := func() {
		if err := sh.UnlockRobots(context.WithoutCancel(ctx), authority); err != nil && r.policy.Logger != nil {
			r.policy.Logger.Warn("robots.txt lock not released; it expires by itself", "authority", authority, "ttl", r.policy.SharedLockTTL, "error", err)
		}
	}
	// The holder of the lock before this process may have stored its
	// record between the read and the lock.
	cur, err = r.loadShared(ctx, authority, e)
	if err != nil {
		unlock()
		return r.sharedFailed(ctx, authority, e, "read", err)
	}
	if cur != e && !r.due(cur, now, seq) {
		unlock()
		return cur, nil
	}
	e = cur
	fresh, rf, err := r.fetchEntry(ctx, authority, e)
	if err != nil {
		unlock()
		return nil, err
	}
	fresh.refreshedFor = seq
	r.Put(fresh)
	rec := newRobotsRecord(fresh, rf, r.policy.parseLimit())
	if err := sh.StoreRobots(context.WithoutCancel(ctx), rec); err != nil && r.policy.Logger != nil {
		// This process uses the file all the same; the others fetch it
		// again once the lock expires.
		r.policy.Logger.Error("robots.txt not stored in the shared cache", "authority", authority, "error", err)
	}
	r.fetched(fresh, e, rec)
	return fresh, nil
}

// loadShared reads the authority's shared record and, when it is of a
// later fetch than e (or e is nil), installs its entry and returns it;
// otherwise it returns e. A record this stage cannot use (another parse
// limit, damaged) is logged and ignored: the file is fetched again.
func (r *Robots) loadShared(ctx context.Context, authority string, e *RobotsEntry) (*RobotsEntry, error) {
	rec, err := r.policy.Shared.LoadRobots(ctx, authority)
	if err != nil || rec == nil {
		return e, err
	}
	if e != nil && !rec.FetchedAt.After(e.FetchedAt) {
		return e, nil
	}
	ne, err := rec.Entry(r.policy.Agent, r.policy.parseLimit())
	if err != nil {
		if r.policy.Logger != nil {
			r.policy.Logger.Warn("shared robots.txt record not used; fetching the file", "authority", authority, "error", err)
		}
		return e, nil
	}
	r.Put(ne)
	if r.policy.OnLoaded != nil {
		r.policy.OnLoaded(ne)
	}
	return ne, nil
}

// sharedFailed answers a request whose entry could not be read or locked
// in the shared store: with the entry this process has, if it may decide
// (stale knowledge beats none), else with a deferral.
func (r *Robots) sharedFailed(ctx context.Context, authority string, e *RobotsEntry, op string, err error) (*RobotsEntry, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r.policy.Logger != nil {
		r.policy.Logger.Warn("shared robots.txt cache unavailable; deferring the authority's requests", "authority", authority, "op", op, "error", err)
	}
	if e != nil && e.State != RobotsUnreachable {
		return e, nil
	}
	return nil, &DeferError{Until: systemNow().Add(sharedUnavailableWait), Reason: "robots-store-unavailable"}
}

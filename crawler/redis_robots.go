package crawler

import (
	"context"
	"time"

	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
)

// sharedRobots is the crawl's robots.txt cache in Redis as the robots
// stage's RobotsStore: heed's robots.txt record converted to the store's
// and back.
type sharedRobots struct{ c *redisfrontier.RobotsCache }

var _ middleware.RobotsStore = sharedRobots{}

func (s sharedRobots) LoadRobots(ctx context.Context, authority string) (*middleware.RobotsRecord, error) {
	rec, err := s.c.GetRobots(ctx, authority)
	if err != nil || rec == nil {
		return nil, err
	}
	return fromSharedRobots(authority, rec), nil
}

func (s sharedRobots) TryLockRobots(ctx context.Context, authority string, ttl time.Duration) (bool, error) {
	return s.c.TryLockRobots(ctx, authority, ttl)
}

func (s sharedRobots) StoreRobots(ctx context.Context, rec *middleware.RobotsRecord) error {
	return s.c.PutRobots(ctx, rec.Authority, toSharedRobots(rec))
}

func (s sharedRobots) UnlockRobots(ctx context.Context, authority string) error {
	return s.c.UnlockRobots(ctx, authority)
}

// toSharedRobots converts a fetch's record for the store. The store keeps
// up to redisfrontier.MaxRobotsBody bytes of body (500 KiB, heed's default
// parse limit) and whether it was cut.
func toSharedRobots(rec *middleware.RobotsRecord) *redisfrontier.RobotsRecord {
	return &redisfrontier.RobotsRecord{
		URL: rec.URL, FinalURL: rec.FinalURL, Hops: rec.Hops, FetchedAt: rec.FetchedAt,
		Status: rec.Status, State: rec.State, Err: rec.Err,
		FirstFailure: rec.FirstFailure, Failures: rec.Failures, RetryAt: rec.RetryAt,
		Body: rec.Body, BodyTruncated: rec.Truncated != nil,
	}
}

// fromSharedRobots converts a stored record back. A body that was cut is
// a file read up to the store's limit: a process whose parse limit is
// higher refuses the record (middleware.ErrStaleRecord) and fetches the
// file itself.
func fromSharedRobots(authority string, rec *redisfrontier.RobotsRecord) *middleware.RobotsRecord {
	out := &middleware.RobotsRecord{
		Authority: authority, URL: rec.URL, FinalURL: rec.FinalURL, Hops: rec.Hops, FetchedAt: rec.FetchedAt,
		Status: rec.Status, State: rec.State, Err: rec.Err,
		FirstFailure: rec.FirstFailure, Failures: rec.Failures, RetryAt: rec.RetryAt,
		Body: rec.Body,
	}
	if rec.BodyTruncated {
		out.Limit = min(len(rec.Body), redisfrontier.MaxRobotsBody)
		out.Truncated = &robots.Truncation{Limit: out.Limit}
	}
	return out
}

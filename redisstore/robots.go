package redisfrontier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// MaxRobotsBody is the most bytes of a robots.txt body a RobotsCache keeps:
// 500 KiB, the least RFC 9309 asks a crawler to parse. A longer body is cut
// and its record says so.
const MaxRobotsBody = 512000

// RobotsRecord is the outcome of one fetch of an authority's robots.txt, as
// shared by the processes of a crawl. It is plain data: heed's robots stage
// converts its own entry to and from it. Times are the fetching machine's.
type RobotsRecord struct {
	// URL is the robots.txt URL asked for; FinalURL where the answer came
	// from after Hops redirects.
	URL      string `json:"url"`
	FinalURL string `json:"final_url,omitempty"`
	Hops     int    `json:"hops,omitempty"`
	// FetchedAt is when the fetch ended. Of two records of one
	// authority, the later one is kept.
	FetchedAt time.Time `json:"fetched_at"`
	// Status is the HTTP status of the last response; 0 when none came.
	Status int `json:"status,omitempty"`
	// State is the RFC 9309 case: heed uses "available", "unavailable"
	// and "unreachable".
	State string `json:"state"`
	// Err describes a failed fetch; RetryAfter is a 429 or 503 answer's
	// Retry-After header.
	Err        string `json:"err,omitempty"`
	RetryAfter string `json:"retry_after,omitempty"`
	// FirstFailure, Failures and RetryAt are the bookkeeping of an
	// unreachable robots.txt: when it first failed, how many fetches
	// failed in a row, and when to try again. Sharing them keeps one
	// retry schedule for the whole crawl.
	FirstFailure time.Time `json:"first_failure,omitzero"`
	Failures     int       `json:"failures,omitempty"`
	RetryAt      time.Time `json:"retry_at,omitzero"`
	// Body is the file, at most MaxRobotsBody bytes; BodyTruncated says
	// a longer one was cut.
	Body          []byte `json:"-"`
	BodyTruncated bool   `json:"body_truncated,omitempty"`
}

// RobotsCache is the crawl's shared robots.txt cache: one record per
// authority, and a lock so that one process at a time fetches a given
// authority's robots.txt while the others wait for its record. It decides
// nothing about freshness: the caller compares FetchedAt with its max age.
//
// The usual sequence, in heed's robots stage: GetRobots; if there is no
// usable record, TryLockRobots; the process that gets the lock fetches and
// calls PutRobots (which releases the lock), the others defer their
// requests and read the record later. A lock whose holder died expires
// after its ttl.
type RobotsCache struct {
	s     *Store
	owner string // this cache's lock token
}

// NewRobotsCache returns the robots.txt cache of the store's crawl. Each
// RobotsCache holds locks under its own name, so a process should use one.
func NewRobotsCache(s *Store) *RobotsCache {
	var b [8]byte
	rand.Read(b[:])
	return &RobotsCache{s: s, owner: hex.EncodeToString(b[:])}
}

func (c *RobotsCache) entryKey(a string) string { return c.s.Key("robots:e:" + a) }
func (c *RobotsCache) lockKey(a string) string  { return c.s.Key("robots:l:" + a) }

// GetRobots returns the authority's record, or nil and no error when none
// is stored.
func (c *RobotsCache) GetRobots(ctx context.Context, authority string) (*RobotsRecord, error) {
	var vals []any
	err := c.s.Do(ctx, "robots get", func(ctx context.Context) error {
		var err error
		vals, err = c.s.rdb.HMGet(ctx, c.entryKey(authority), "meta", "body").Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	meta, ok := vals[0].(string)
	if !ok {
		return nil, nil
	}
	body, _ := vals[1].(string)
	rec, err := decodeRobots(meta, body)
	if err != nil {
		return nil, fmt.Errorf("redisfrontier: robots.txt record of %s: %w", authority, err)
	}
	return rec, nil
}

// decodeRobots reads a stored record back.
func decodeRobots(meta, body string) (*RobotsRecord, error) {
	rec := new(RobotsRecord)
	if err := json.Unmarshal([]byte(meta), rec); err != nil {
		return nil, fmt.Errorf("malformed record: %w", err)
	}
	if len(body) > MaxRobotsBody {
		return nil, fmt.Errorf("malformed record: body of %d bytes", len(body))
	}
	if body != "" {
		rec.Body = []byte(body)
	}
	return rec, nil
}

// lockScript takes or extends a lock. KEYS: lock. ARGV: owner, ttl (ms).
var lockScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if cur then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`)

// unlockScript deletes a lock its owner holds. KEYS: lock. ARGV: owner.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`)

// putScript stores a record unless a later one is stored, and releases
// the owner's lock. KEYS: entry, lock. ARGV: owner, fetched at (µs), meta,
// body. Returns 1 if it stored the record.
var putScript = redis.NewScript(`
local cur = tonumber(redis.call('HGET', KEYS[1], 'at'))
local stored = 0
if not cur or tonumber(ARGV[2]) >= cur then
  redis.call('HSET', KEYS[1], 'at', ARGV[2], 'meta', ARGV[3], 'body', ARGV[4])
  stored = 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return stored
`)

// TryLockRobots takes the authority's fetch lock for ttl, without
// blocking: true means this process should fetch robots.txt and then call
// PutRobots (or UnlockRobots if it gives up). A RobotsCache that already
// holds the lock extends it. The ttl should exceed the longest fetch: a
// lock that outlives its holder only delays the others.
func (c *RobotsCache) TryLockRobots(ctx context.Context, authority string, ttl time.Duration) (bool, error) {
	if ttl < time.Millisecond {
		return false, fmt.Errorf("redisfrontier: robots.txt lock of %v is too short", ttl)
	}
	var got int64
	err := c.s.Do(ctx, "robots lock", func(ctx context.Context) error {
		var err error
		got, err = lockScript.Run(ctx, c.s.rdb, []string{c.lockKey(authority)}, c.owner, ttl.Milliseconds()).Int64()
		return err
	})
	return got == 1, err
}

// UnlockRobots releases the authority's fetch lock if this cache holds it.
func (c *RobotsCache) UnlockRobots(ctx context.Context, authority string) error {
	return c.s.Do(ctx, "robots unlock", func(ctx context.Context) error {
		return unlockScript.Run(ctx, c.s.rdb, []string{c.lockKey(authority)}, c.owner).Err()
	})
}

// PutRobots stores rec as the authority's record, unless a record with a
// later FetchedAt is stored already (a slow fetch does not overwrite a
// fresher one), and releases the authority's fetch lock if this cache holds
// it. A body longer than MaxRobotsBody is stored cut, with BodyTruncated
// set; rec itself is not changed.
func (c *RobotsCache) PutRobots(ctx context.Context, authority string, rec *RobotsRecord) error {
	if rec == nil {
		return errors.New("redisfrontier: PutRobots of a nil record")
	}
	if authority == "" {
		return errors.New("redisfrontier: PutRobots without an authority")
	}
	r := *rec
	if len(r.Body) > MaxRobotsBody {
		r.Body, r.BodyTruncated = r.Body[:MaxRobotsBody], true
	}
	meta, err := json.Marshal(&r)
	if err != nil {
		return fmt.Errorf("redisfrontier: encode robots.txt record of %s: %w", authority, err)
	}
	keys := []string{c.entryKey(authority), c.lockKey(authority)}
	return c.s.Do(ctx, "robots put", func(ctx context.Context) error {
		return putScript.Run(ctx, c.s.rdb, keys, c.owner, r.FetchedAt.UnixMicro(), meta, r.Body).Err()
	})
}

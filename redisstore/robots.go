package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
)

// MaxRobotsBody is the parse limit up to which a RobotsCache keeps a
// robots.txt body: 500 KiB, the least RFC 9309 asks a crawler to parse. A
// record read with a higher limit is stored cut at this one, and says so,
// so that a process parsing further refuses it and fetches the file itself
// (middleware.ErrStaleRecord).
const MaxRobotsBody = robots.DefaultMaxBytes

// RobotsCache is the crawl's shared robots.txt cache: one
// [middleware.RobotsRecord] per authority, and a lock so that one process
// at a time fetches a given authority's robots.txt while the others wait
// for its record. It is the robots stage's [middleware.RobotsStore], given
// as RobotsPolicy.Shared. It decides nothing about freshness: the stage
// compares FetchedAt with its max age.
//
// The sequence, in heed's robots stage: LoadRobots; if there is no usable
// record, TryLockRobots; the process that gets the lock fetches and calls
// StoreRobots (which releases the lock), the others defer their requests
// and read the record later. A lock whose holder died expires after its
// ttl.
var _ middleware.RobotsStore = (*RobotsCache)(nil)

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

// LoadRobots returns the authority's record, or nil and no error when none
// is stored.
func (c *RobotsCache) LoadRobots(ctx context.Context, authority string) (*middleware.RobotsRecord, error) {
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
		return nil, fmt.Errorf("redisstore: robots.txt record of %s: %w", authority, err)
	}
	return rec, nil
}

// decodeRobots reads a stored record back.
func decodeRobots(meta, body string) (*middleware.RobotsRecord, error) {
	rec := new(middleware.RobotsRecord)
	if err := json.Unmarshal([]byte(meta), rec); err != nil {
		return nil, fmt.Errorf("malformed record: %w", err)
	}
	if len(body) > MaxRobotsBody+1 {
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
// StoreRobots (or UnlockRobots if it gives up). A RobotsCache that already
// holds the lock extends it. The ttl should exceed the longest fetch: a
// lock that outlives its holder only delays the others.
func (c *RobotsCache) TryLockRobots(ctx context.Context, authority string, ttl time.Duration) (bool, error) {
	if ttl < time.Millisecond {
		return false, fmt.Errorf("redisstore: robots.txt lock of %v is too short", ttl)
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

// StoreRobots stores rec as its authority's record, unless a record with
// a later FetchedAt is stored already (a slow fetch does not overwrite a
// fresher one), and releases the authority's fetch lock if this cache
// holds it. A record read with a parse limit above MaxRobotsBody is stored
// cut at MaxRobotsBody, with Limit and Truncated saying so; rec itself is
// not changed.
func (c *RobotsCache) StoreRobots(ctx context.Context, rec *middleware.RobotsRecord) error {
	if rec == nil {
		return errors.New("redisstore: StoreRobots of a nil record")
	}
	if rec.Authority == "" {
		return errors.New("redisstore: StoreRobots without an authority")
	}
	r := *rec
	body := r.Body
	if len(body) > MaxRobotsBody+1 {
		// One byte past the limit, as the robots stage keeps it: the
		// parser then cuts the file where a reader at this limit would.
		body = body[:MaxRobotsBody+1]
		r.Limit = MaxRobotsBody
		ignored := len(rec.Body) - MaxRobotsBody
		if rec.Truncated != nil {
			ignored = rec.Truncated.BytesIgnored + rec.Limit - MaxRobotsBody
		}
		r.Truncated = &robots.Truncation{Limit: MaxRobotsBody, BytesIgnored: ignored}
	}
	r.Body = nil
	meta, err := json.Marshal(&r)
	if err != nil {
		return fmt.Errorf("redisstore: encode robots.txt record of %s: %w", r.Authority, err)
	}
	keys := []string{c.entryKey(r.Authority), c.lockKey(r.Authority)}
	return c.s.Do(ctx, "robots put", func(ctx context.Context) error {
		return putScript.Run(ctx, c.s.rdb, keys, c.owner, r.FetchedAt.UnixMicro(), meta, body).Err()
	})
}

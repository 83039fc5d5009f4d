package redisstore

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Counters are a crawl's statistics summed over all its processes: pages
// and bytes downloaded, responses by status and skip-log records by reason,
// crawl-wide and per authority, and named counters for anything else
// (robots.txt outcomes, deferrals, items). Each call is one round trip that
// updates the crawl-wide and the authority's counts together.
//
// Counting is at-least-once: a call whose reply was lost in a Redis failure
// is retried and may count twice.
type Counters struct {
	s *Store
}

// NewCounters returns the counters of the store's crawl.
func NewCounters(s *Store) *Counters { return &Counters{s: s} }

// Field names of the counter hashes.
const (
	fieldPages   = "pages"
	fieldBytes   = "bytes"
	statusPrefix = "status:"
	skipPrefix   = "skip:"
	namedPrefix  = "n:"
)

func (c *Counters) totalKey() string        { return c.s.Key("stats:total") }
func (c *Counters) authsKey() string        { return c.s.Key("stats:auths") }
func (c *Counters) authKey(a string) string { return c.s.Key("stats:a:" + a) }

// Fetched counts one downloaded response of the authority: a page, its
// body's bytes and its status.
func (c *Counters) Fetched(ctx context.Context, authority string, status int, bytes int64) error {
	st := statusPrefix + strconv.Itoa(status)
	return c.update(ctx, "count fetched", authority, func(p redis.Pipeliner, key string) {
		p.HIncrBy(ctx, key, fieldPages, 1)
		p.HIncrBy(ctx, key, fieldBytes, bytes)
		p.HIncrBy(ctx, key, st, 1)
	})
}

// Skipped counts one skip-log record of the authority with the reason.
func (c *Counters) Skipped(ctx context.Context, authority, reason string) error {
	if reason == "" {
		return errors.New("redisstore: Skipped without a reason")
	}
	return c.update(ctx, "count skipped", authority, func(p redis.Pipeliner, key string) {
		p.HIncrBy(ctx, key, skipPrefix+reason, 1)
	})
}

// Add adds n to the crawl-wide counter name.
func (c *Counters) Add(ctx context.Context, name string, n int64) error {
	if name == "" {
		return errors.New("redisstore: Add without a counter name")
	}
	return c.s.Do(ctx, "count", func(ctx context.Context) error {
		return c.s.rdb.HIncrBy(ctx, c.totalKey(), namedPrefix+name, n).Err()
	})
}

// update applies incr to the crawl-wide hash and, for a non-empty
// authority, to the authority's, in one transaction.
func (c *Counters) update(ctx context.Context, op, authority string, incr func(p redis.Pipeliner, key string)) error {
	return c.s.Do(ctx, op, func(ctx context.Context) error {
		_, err := c.s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			incr(p, c.totalKey())
			if authority != "" {
				p.SAdd(ctx, c.authsKey(), authority)
				incr(p, c.authKey(authority))
			}
			return nil
		})
		return err
	})
}

// Totals are a crawl's counters at one moment.
type Totals struct {
	Tally
	// Named holds the counters of Add.
	Named map[string]int64
	// Authorities holds the counts per authority.
	Authorities map[string]Tally
}

// Tally is the counts of a crawl or of one authority.
type Tally struct {
	Pages    int64
	Bytes    int64
	Statuses map[int]int64
	Skipped  map[string]int64
}

// Read returns every counter of the crawl.
func (c *Counters) Read(ctx context.Context) (*Totals, error) {
	var total map[string]string
	var auths []string
	err := c.s.Do(ctx, "read counters", func(ctx context.Context) error {
		var err error
		if total, err = c.s.rdb.HGetAll(ctx, c.totalKey()).Result(); err != nil {
			return err
		}
		auths, err = c.s.rdb.SMembers(ctx, c.authsKey()).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	t := &Totals{Named: make(map[string]int64), Authorities: make(map[string]Tally, len(auths))}
	t.Tally = parseTally(total, t.Named)
	const batch = 500
	for len(auths) > 0 {
		part := auths[:min(batch, len(auths))]
		auths = auths[len(part):]
		var cmds []*redis.MapStringStringCmd
		err := c.s.Do(ctx, "read counters", func(ctx context.Context) error {
			cmds = cmds[:0]
			_, err := c.s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, a := range part {
					cmds = append(cmds, p.HGetAll(ctx, c.authKey(a)))
				}
				return nil
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		for i, a := range part {
			t.Authorities[a] = parseTally(cmds[i].Val(), nil)
		}
	}
	return t, nil
}

// parseTally reads a counter hash; named counters go to named when it is
// not nil. Fields that do not parse are ignored.
func parseTally(h map[string]string, named map[string]int64) Tally {
	c := Tally{Statuses: make(map[int]int64), Skipped: make(map[string]int64)}
	for k, v := range h {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		switch {
		case k == fieldPages:
			c.Pages = n
		case k == fieldBytes:
			c.Bytes = n
		case strings.HasPrefix(k, statusPrefix):
			if code, err := strconv.Atoi(k[len(statusPrefix):]); err == nil {
				c.Statuses[code] = n
			}
		case strings.HasPrefix(k, skipPrefix):
			c.Skipped[k[len(skipPrefix):]] = n
		case strings.HasPrefix(k, namedPrefix) && named != nil:
			named[k[len(namedPrefix):]] = n
		}
	}
	return c
}

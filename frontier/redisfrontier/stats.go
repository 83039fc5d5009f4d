package redisfrontier

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// drainBatch bounds the requests one Drain script call removes.
const drainBatch = 256

// Counts are a crawl's frontier counts, read from Redis: heed's
// [frontier.Stats] for the whole crawl, and what only a shared frontier
// has.
type Counts struct {
	frontier.Stats
	// Reclaimed counts leases that expired and whose requests went back
	// to their queues. Each such request may be fetched twice: this is
	// the bound on the crawl's duplicate fetches.
	Reclaimed int
	// Ready counts authorities that may be handed out now; Waiting those
	// held back by a Retry or the Gate.
	Ready, Waiting int
	// Admitting counts Pushes in their admission function, in every
	// process.
	Admitting int
}

// Counts reads the crawl's counts in one transaction.
func (f *Frontier) Counts(ctx context.Context) (Counts, error) {
	return readCounts(ctx, f.s, f.keys[0])
}

// ReadCounts reads the counts of the crawl kept in s without joining it:
// it changes nothing in Redis and starts nothing, so a status page or a
// tool can show a running, paused or finished fleet. A crawl that has
// queued nothing yet has zero counts.
func ReadCounts(ctx context.Context, s *redisstore.Store) (Counts, error) {
	if s == nil {
		return Counts{}, errors.New("redisfrontier: nil store")
	}
	return readCounts(ctx, s, s.Key("f:"))
}

func readCounts(ctx context.Context, s *redisstore.Store, F string) (Counts, error) {
	var (
		n       *redis.SliceCmd
		leased  *redis.IntCmd
		seen    *redis.IntCmd
		byAuth  *redis.MapStringStringCmd
		ready   *redis.IntCmd
		waiting *redis.IntCmd
		admit   *redis.IntCmd
	)
	err := s.Do(ctx, "stats", func(ctx context.Context) error {
		_, err := s.Client().TxPipelined(ctx, func(p redis.Pipeliner) error {
			n = p.HMGet(ctx, F+"n", "queued", "dups", "rejects", "reclaimed")
			leased = p.ZCard(ctx, F+"leases")
			seen = p.SCard(ctx, F+"seen")
			byAuth = p.HGetAll(ctx, F+"byauth")
			ready = p.ZCard(ctx, F+"ready")
			waiting = p.ZCard(ctx, F+"wait")
			admit = p.ZCard(ctx, F+"admit")
			return nil
		})
		return err
	})
	if err != nil {
		return Counts{}, err
	}
	vals := n.Val()
	c := Counts{
		Stats: frontier.Stats{
			Queued:      atoi(vals[0]),
			Leased:      int(leased.Val()),
			Seen:        int(seen.Val()),
			Duplicates:  atoi(vals[1]),
			Rejected:    atoi(vals[2]),
			ByAuthority: make(map[string]int, len(byAuth.Val())),
		},
		Reclaimed: atoi(vals[3]),
		Ready:     int(ready.Val()),
		Waiting:   int(waiting.Val()),
		Admitting: int(admit.Val()),
	}
	for a, v := range byAuth.Val() {
		if k := atoi(v); k > 0 {
			c.ByAuthority[a] = k
		}
	}
	return c, nil
}

// Sizes returns the crawl's queued and leased counts: what Stats gives
// without ByAuthority, whose size grows with the number of authorities.
// It is the call for a progress display that asks often.
func (f *Frontier) Sizes(ctx context.Context) (queued, leased int, err error) {
	F := f.keys[0]
	var q *redis.StringCmd
	var l *redis.IntCmd
	err = f.s.Do(ctx, "stats", func(ctx context.Context) error {
		_, err := f.s.Client().Pipelined(ctx, func(p redis.Pipeliner) error {
			q = p.HGet(ctx, F+"n", "queued")
			l = p.ZCard(ctx, F+"leases")
			return nil
		})
		if errors.Is(err, redis.Nil) {
			err = nil // a crawl that has queued nothing yet
		}
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return atoi(q.Val()), int(l.Val()), nil
}

func atoi(v any) int {
	s, _ := v.(string)
	n, _ := strconv.Atoi(s)
	return n
}

// Stats reports the crawl's counts (every process's, not this one's). It
// has no context, so it waits at most 5 s; if Redis cannot answer by then
// it logs why and returns the last counts it read. It works after Close.
func (f *Frontier) Stats() frontier.Stats {
	ctx, cancel := context.WithTimeout(context.Background(), statsTimeout)
	defer cancel()
	c, err := f.Counts(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.s.Logger().Warn("redisfrontier: stats unavailable; reporting the last ones read", "error", err.Error())
		return f.lastStats
	}
	f.lastStats = c.Stats
	return c.Stats
}

// Drain removes every queued request of the crawl (every process's; leased
// ones stay leased) and passes each to fn, authority by authority in name
// order, each authority's in queue order, after all are removed. Drained
// URLs stay seen. If Redis fails part way, fn still gets every request
// removed so far, and the error is returned. After Close it returns
// ErrClosed.
func (f *Frontier) Drain(ctx context.Context, fn func(*frontier.Request)) error {
	if f.isClosed() {
		return frontier.ErrClosed
	}
	var auths []string
	err := f.s.Do(ctx, "drain", func(ctx context.Context) error {
		var err error
		auths, err = f.s.Client().HKeys(ctx, f.keys[0]+"byauth").Result()
		return err
	})
	var out []*frontier.Request
	if err == nil {
		sort.Strings(auths)
		out, err = f.drain(ctx, auths)
	}
	if fn != nil {
		for _, r := range out {
			fn(r)
		}
	}
	return err
}

func (f *Frontier) drain(ctx context.Context, auths []string) ([]*frontier.Request, error) {
	var out []*frontier.Request
	exhausted := false
	for _, a := range auths {
		for {
			res, err := f.run(ctx, "drain", drainScript, f.cfg.LeasesPerAuthority, a, drainBatch)
			if err != nil {
				return out, err
			}
			r, _ := res.([]any)
			exhausted = intAt(r, 0) == 1
			var members []any
			if len(r) > 1 {
				members, _ = r[1].([]any)
			}
			for _, m := range members {
				s, _ := m.(string)
				req, err := decodeMember(s)
				if err != nil {
					f.s.Logger().Error("redisfrontier: drained a request that cannot be read", "error", err.Error())
					continue
				}
				out = append(out, req)
			}
			if len(members) < drainBatch {
				break
			}
		}
	}
	if exhausted {
		f.wake.all()
	}
	return out, nil
}

// String describes the frontier for logs.
func (f *Frontier) String() string {
	return fmt.Sprintf("redisfrontier(%s, %s)", f.s.Prefix(), f.cfg.Order)
}

// Package redisfleet reads what a crawl shared through Redis (heed crawl
// --redis) keeps for the whole fleet — the counters summed over every
// process and the queue per authority — for heed's fleet page
// (ui.WithFleet). It only reads: it joins no crawl, takes no lease and
// writes no key, so it can watch a running, paused or finished fleet.
//
// It is a package of its own so that a program serving heed's other pages
// does not link a Redis client.
package redisfleet

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/ui"
)

// Source reads one crawl of a Redis database. It implements
// ui.FleetSource.
type Source struct {
	id    string
	store *redisstore.Store
}

// New returns the reader of the crawl whose keys start with prefix (heed
// names a crawl's keys "heed:ID:") in the database rdb reaches.
func New(rdb redis.UniversalClient, crawlID, prefix string) (*Source, error) {
	st, err := redisstore.NewStore(rdb, prefix)
	if err != nil {
		return nil, fmt.Errorf("redisfleet: %w", err)
	}
	return &Source{id: crawlID, store: st}, nil
}

// Fleet reads the counters and the queue.
func (s *Source) Fleet(ctx context.Context) (*ui.FleetView, error) {
	tot, err := redisstore.NewCounters(s.store).Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("redisfleet: counters: %w", err)
	}
	cn, err := redisfrontier.ReadCounts(ctx, s.store)
	if err != nil {
		return nil, fmt.Errorf("redisfleet: queue: %w", err)
	}
	v := &ui.FleetView{Shared: *fleet.Summarize(s.id, tot, cn)}
	// A crawl no process has fetched a page of yet is not complete, even
	// with nothing queued: it may not have started.
	v.Done = v.Done && tot.Pages > 0
	rows := map[string]*ui.FleetAuthority{}
	row := func(a string) *ui.FleetAuthority {
		if rows[a] == nil {
			rows[a] = &ui.FleetAuthority{Authority: a}
		}
		return rows[a]
	}
	for a, t := range tot.Authorities {
		r := row(a)
		r.Pages = t.Pages
		for _, n := range t.Skipped {
			r.Skipped += n
		}
	}
	for a, n := range cn.ByAuthority {
		row(a).Queued = n
	}
	for _, r := range rows {
		v.Authorities = append(v.Authorities, *r)
	}
	return v, nil
}

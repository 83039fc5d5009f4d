package durable

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/internal/sched"
)

// load reads the counters and the authorities, puts the requests that were
// leased back at the head of their queues (one synced write), reads each
// authority's read-ahead and schedules it. Only per-authority state is
// read: queues and the seen set stay on disk.
func (f *Frontier) load() error {
	v, err := get(f.db, []byte{prefixCounters})
	if err != nil {
		return fmt.Errorf("durable: %s: read counters: %w", f.path, err)
	}
	if f.ctr, err = decodeCounters(v); err != nil {
		return &FormatError{Path: f.path, Reason: err.Error()}
	}
	byID := make(map[uint32]*authority)
	err = scan(f.db, []byte{prefixAuthority}, func(k, v []byte) error {
		if len(k) != 5 {
			return fmt.Errorf("bad authority key %x", k)
		}
		rec, err := decodeAuthRecord(v)
		if err != nil {
			return err
		}
		a := &authority{Slot: sched.Slot{Name: rec.name, Hold: rec.hold}, id: binary.BigEndian.Uint32(k[1:]), queued: rec.queued}
		byID[a.id] = a
		f.auths[a.Name] = a
		return nil
	})
	if err != nil {
		return &FormatError{Path: f.path, Reason: "authority records: " + err.Error()}
	}

	// Leases of a process that ended without Done or Retry.
	leased := make(map[*authority][]*frontier.Request)
	b := f.db.NewBatch()
	defer b.Close()
	err = scan(f.db, []byte{prefixLease}, func(k, v []byte) error {
		id, r, err := decodeLease(v)
		if err != nil {
			return err
		}
		a := byID[id]
		if a == nil {
			// The authority record goes only with its last lease; be
			// lenient all the same and make it again.
			name := authorityPrefix(r.URL)
			if a = f.auths[name]; a == nil {
				a = &authority{Slot: sched.Slot{Name: name}, id: id}
				byID[id] = a
				f.auths[name] = a
			}
		}
		leased[a] = append(leased[a], r)
		b.Delete(slices.Clone(k), nil)
		return nil
	})
	if err != nil {
		return &FormatError{Path: f.path, Reason: "lease records: " + err.Error()}
	}
	for a, reqs := range leased {
		// Back to the head in their queue order: the best one last, so
		// that it ends at the head.
		sort.Slice(reqs, func(i, j int) bool { return f.cfg.Order.Less(reqs[j], reqs[i]) })
		for _, r := range reqs {
			f.ctr.front++
			b.Set(frontKey(a.id, f.ctr.front), encodeRequest(nil, r), nil)
			a.queued++
		}
		b.Set(authorityKey(a.id), a.record().encode(), nil)
	}

	ids := make([]uint32, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		a := byID[id]
		if a.queued == 0 {
			// Idle: the record outlived its last request (a crash between
			// writes cannot cause this, but a damaged store might).
			b.Delete(authorityKey(id), nil)
			delete(f.auths, a.Name)
			continue
		}
		f.sched.Join(a)
		f.queued += a.queued
	}
	b.Set([]byte{prefixCounters}, f.ctr.encode(), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("durable: %s: requeue leased requests: %w", f.path, err)
	}
	for _, id := range ids {
		a := byID[id]
		if a.queued == 0 {
			continue
		}
		if err := f.fill(a); err != nil {
			return err
		}
		f.sched.Add(a)
	}
	return nil
}

package durable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heedcrawl/heed/frontier"
)

// Stats reports the counts; it works after Close too. ByAuthority lists
// the authorities with queued requests. Counts come from memory: nothing is
// read from disk.
func (f *Frontier) Stats() frontier.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := frontier.Stats{
		Queued:      f.queued,
		Leased:      len(f.leases),
		Seen:        int(f.ctr.seen),
		Duplicates:  int(f.ctr.dups),
		Rejected:    int(f.ctr.rejects),
		ByAuthority: make(map[string]int),
	}
	for name, a := range f.auths {
		if a.queued > 0 {
			s.ByAuthority[name] = a.queued
		}
	}
	return s
}

// Sync waits until everything written so far is on stable storage:
// the leases, Done and Retry calls (which do not wait for fsync) and the
// counters of duplicate and rejected pushes (which are written with the
// next write). Push, PushBatch, the meta writes and Close sync by
// themselves.
func (f *Frontier) Sync() error {
	f.mu.Lock()
	if err := f.usable(); err != nil {
		f.mu.Unlock()
		return err
	}
	b := f.db.NewBatch()
	b.Set([]byte{prefixCounters}, f.ctr.encode(), nil)
	return f.commitSynced(b) // unlocks f.mu
}

// commitSynced applies b while f.mu is held (so that writes reach the log
// in the order of the state they record), unlocks f.mu, and waits for the
// fsync, which concurrent callers share.
func (f *Frontier) commitSynced(b *pebble.Batch) error {
	if err := f.applySynced(b); err != nil {
		f.mu.Unlock()
		return err
	}
	return f.waitSynced(b)
}

// applySynced hands b to the commit pipeline, to be fsync'd, while f.mu is
// held; on failure it closes b and the frontier fails. The caller then
// updates its state in memory, and calls waitSynced.
func (f *Frontier) applySynced(b *pebble.Batch) error {
	if err := f.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		b.Close()
		return f.fail(err)
	}
	return nil
}

// waitSynced unlocks f.mu, waits for the fsync of b (applied by
// applySynced) and closes it; a failed fsync fails the frontier. Close
// waits for it.
func (f *Frontier) waitSynced(b *pebble.Batch) error {
	f.ops.Add(1)
	f.mu.Unlock()
	defer f.ops.Done()
	err := b.SyncWait()
	b.Close()
	if err != nil {
		f.mu.Lock()
		err = f.fail(err)
		f.mu.Unlock()
	}
	return err
}

// Close makes every blocked and later Next return ErrClosed, and the other
// calls fail with ErrClosed; it waits for calls in progress, syncs and
// closes the store. Leased requests stay leased on disk: the next Open puts
// them back in their queues. Closing twice is harmless.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.sched.Close()
	ctr, broken := f.ctr.encode(), f.broken
	f.mu.Unlock()

	f.ops.Wait()
	var err error
	if broken == nil {
		err = f.db.Set([]byte{prefixCounters}, ctr, pebble.Sync)
	}
	if cerr := f.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("durable: close %s: %w", f.path, err)
	}
	return nil
}

// Drain removes every queued (not leased) request and passes each to fn
// (nil fn: they are dropped), authority by authority in name order, each
// authority's in queue order. The removal is one synced write; fn is then
// called without the frontier's lock, reading the removed requests from a
// snapshot, so Drain needs no memory for them. Leased requests stay leased.
// Drained URLs stay seen. Call Drain before Close: after Close it returns
// ErrClosed.
func (f *Frontier) Drain(_ context.Context, fn func(*frontier.Request)) error {
	f.mu.Lock()
	if err := f.usable(); err != nil {
		f.mu.Unlock()
		return err
	}
	type named struct {
		name string
		id   uint32
	}
	var drained []named
	var snap *pebble.Iterator
	if fn != nil && f.queued > 0 {
		var err error
		snap, err = f.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixQueue}, UpperBound: []byte{prefixQueue + 1}})
		if err != nil {
			err = f.fail(err)
			f.mu.Unlock()
			return err
		}
	}
	b := f.db.NewBatch()
	b.DeleteRange([]byte{prefixQueue}, []byte{prefixQueue + 1}, nil)
	for name, a := range f.auths {
		if a.queued == 0 {
			continue
		}
		drained = append(drained, named{name, a.id})
		if a.Leased == 0 {
			b.Delete(authorityKey(a.id), nil)
		} else {
			rec := a.record()
			rec.queued = 0
			b.Set(authorityKey(a.id), rec.encode(), nil)
		}
	}
	b.Set([]byte{prefixCounters}, f.ctr.encode(), nil)
	if err := f.applySynced(b); err != nil {
		if snap != nil {
			snap.Close()
		}
		f.mu.Unlock()
		return err
	}
	for _, d := range drained {
		a := f.auths[d.name]
		a.heads, a.floor, a.queued = nil, nil, 0
		f.sched.Remove(a)
		if a.Leased == 0 {
			delete(f.auths, d.name)
		}
	}
	f.queued = 0
	if f.exhausted() {
		f.sched.Broadcast()
	}
	f.ops.Add(1)
	f.mu.Unlock()
	defer f.ops.Done()

	err := b.SyncWait()
	b.Close()
	if snap == nil {
		return err
	}
	sort.Slice(drained, func(i, j int) bool { return drained[i].name < drained[j].name })
	for _, d := range drained {
		p := queuePrefix(d.id)
		for ok := snap.SeekGE(p); ok && bytes.HasPrefix(snap.Key(), p); ok = snap.Next() {
			v, verr := snap.ValueAndErr()
			var r *frontier.Request
			if verr == nil {
				r, verr = decodeRequest(v)
			}
			if verr != nil {
				err = errors.Join(err, fmt.Errorf("durable: drain %s: %w", d.name, verr))
				continue
			}
			fn(r)
		}
	}
	return errors.Join(err, snap.Error(), snap.Close())
}

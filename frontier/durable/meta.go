package durable

import (
	"github.com/cockroachdb/pebble/v2"
)

// The meta space is the caller's: keys and values the frontier stores for
// it and never reads. heed's crawler keeps there what it needs to resume a
// crawl (robots.txt cache entries, pacing state, its own stats), so that
// one directory holds the whole state of a crawl.

// GetMeta returns a copy of the value stored under key, or an error
// wrapping ErrMetaNotFound.
func (f *Frontier) GetMeta(key string) ([]byte, error) {
	if err := f.begin(); err != nil {
		return nil, err
	}
	defer f.ops.Done()
	return getMeta(f.db, key)
}

// PutMeta stores value under key, replacing what was there, and returns
// once it is on stable storage.
func (f *Frontier) PutMeta(key string, value []byte) error {
	var b MetaBatch
	b.Put(key, value)
	return f.WriteMeta(&b)
}

// DeleteMeta removes key (no error if it is not stored), and returns once
// the removal is on stable storage.
func (f *Frontier) DeleteMeta(key string) error {
	var b MetaBatch
	b.Delete(key)
	return f.WriteMeta(&b)
}

// ForEachMeta calls fn for each stored key that starts with prefix, in
// byte order of the keys, with a copy of its value, until fn returns an
// error, which ForEachMeta returns. It reads a consistent snapshot: writes
// made meanwhile (fn may make them) are not seen. fn must not call Close.
func (f *Frontier) ForEachMeta(prefix string, fn func(key string, value []byte) error) error {
	if err := f.begin(); err != nil {
		return err
	}
	defer f.ops.Done()
	return forEachMeta(f.db, prefix, fn)
}

// MetaBatch is a set of meta writes that WriteMeta applies at once: after
// a crash, all of them are stored or none. The zero value is an empty
// batch.
type MetaBatch struct {
	ops []metaOp
}

type metaOp struct {
	key    string
	value  []byte
	delete bool
}

// Put adds the storing of value under key to the batch. The value is
// copied.
func (b *MetaBatch) Put(key string, value []byte) {
	b.ops = append(b.ops, metaOp{key: key, value: append([]byte{}, value...)})
}

// Delete adds the removal of key to the batch.
func (b *MetaBatch) Delete(key string) {
	b.ops = append(b.ops, metaOp{key: key, delete: true})
}

// Len returns the number of writes in the batch.
func (b *MetaBatch) Len() int { return len(b.ops) }

// WriteMeta applies b's writes, in order, in one write, and returns once it
// is on stable storage. Concurrent writers share their fsyncs.
func (f *Frontier) WriteMeta(b *MetaBatch) error {
	f.mu.Lock()
	if err := f.usable(); err != nil {
		f.mu.Unlock()
		return err
	}
	pb := f.db.NewBatch()
	for _, op := range b.ops {
		if op.delete {
			pb.Delete(metaKey(op.key), nil)
		} else {
			pb.Set(metaKey(op.key), op.value, nil)
		}
	}
	pb.Set([]byte{prefixCounters}, f.ctr.encode(), nil)
	return f.commitSynced(pb) // unlocks f.mu
}

// begin registers a call that reads the store without f.mu.
func (f *Frontier) begin() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.usable(); err != nil {
		return err
	}
	f.ops.Add(1)
	return nil
}

var _ pebble.Reader = (*pebble.DB)(nil)

package main

import (
	"bytes"
	"errors"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	bolt "go.etcd.io/bbolt"
)

var (
	bSeen   = []byte("seen")
	bQueue  = []byte("queue")
	bLeases = []byte("leases")
)

type boltStore struct{ db *bolt.DB }

func openBolt(path string) (store, error) {
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bSeen, bQueue, bLeases} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	return &boltStore{db}, err
}

func (s *boltStore) push(fps, keys, vals [][]byte) error {
	s.db.NoSync = false
	return s.db.Update(func(tx *bolt.Tx) error {
		seen, q := tx.Bucket(bSeen), tx.Bucket(bQueue)
		// Queue keys of one authority arrive in order: fill pages.
		q.FillPercent = 0.9
		for i, fp := range fps {
			if seen.Get(fp) != nil {
				continue
			}
			if err := seen.Put(fp, []byte{}); err != nil {
				return err
			}
			if err := q.Put(keys[i], vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *boltStore) take(prefix, from []byte) ([]byte, error) {
	s.db.NoSync = true
	var key []byte
	err := s.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bQueue).Cursor()
		k, v := c.Seek(from)
		if k == nil || !bytes.HasPrefix(k, prefix) {
			return nil
		}
		key = bytes.Clone(k)
		if err := tx.Bucket(bLeases).Put(key, v); err != nil {
			return err
		}
		return c.Delete()
	})
	return key, err
}

func (s *boltStore) done(key []byte) error {
	s.db.NoSync = true
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bLeases).Delete(key) })
}

func (s *boltStore) close() error { return s.db.Close() }

type pebbleStore struct{ db *pebble.DB }

func openPebble(path string) (store, error) {
	opts := &pebble.Options{}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(path, opts)
	return &pebbleStore{db}, err
}

// Pebble keeps one keyspace; a byte in front stands for bbolt's buckets.
func pk(space byte, k []byte) []byte { return append([]byte{space}, k...) }

func (s *pebbleStore) push(fps, keys, vals [][]byte) error {
	b := s.db.NewBatch()
	defer b.Close()
	for i, fp := range fps {
		_, c, err := s.db.Get(pk('s', fp))
		if err == nil {
			c.Close()
			continue
		}
		if !errors.Is(err, pebble.ErrNotFound) {
			return err
		}
		b.Set(pk('s', fp), nil, nil)
		b.Set(pk('q', keys[i]), vals[i], nil)
	}
	return b.Commit(pebble.Sync)
}

func (s *pebbleStore) take(prefix, from []byte) ([]byte, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: pk('q', from), UpperBound: pk('q', append(bytes.Clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if !it.First() {
		return nil, it.Error()
	}
	key := bytes.Clone(it.Key()[1:])
	b := s.db.NewBatch()
	defer b.Close()
	b.Delete(pk('q', key), nil)
	b.Set(pk('l', key), it.Value(), nil)
	return key, b.Commit(pebble.NoSync)
}

func (s *pebbleStore) done(key []byte) error {
	return s.db.Delete(pk('l', key), pebble.NoSync)
}

func (s *pebbleStore) close() error { return s.db.Close() }

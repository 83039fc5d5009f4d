package durable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heedcrawl/heed/frontier"
)

// Reader reads a frontier state without changing it: for `heed status`
// while no crawl runs. It loads nothing up front; Status reads the
// per-authority records, never the queues or the seen set.
type Reader struct {
	db     *pebble.DB
	path   string
	order  frontier.Order
	closed bool
}

// OpenReader opens the state in the directory path read-only. The
// directory must exist. Like Open, it fails while a process has the state
// open, and gives a *FormatError for a state it cannot read. A state left
// by a killed process is read as it would be reopened, except that leased
// requests are reported as Leased rather than queued.
func OpenReader(path string) (*Reader, error) {
	db, err := openStore(path, true)
	if err != nil {
		return nil, err
	}
	order, err := checkFormat(db, path, 0, true)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Reader{db: db, path: path, order: order}, nil
}

// Status is what a Reader reports about a state.
type Status struct {
	// Stats are the frontier's counts as the last writer left them.
	// Leased counts leases on disk: requests handed out and not Done when
	// the frontier was closed or its process died; Open queues them
	// again. ByAuthority counts queued requests, without those leases.
	frontier.Stats
	// Order is the order of the state's queues, fixed at creation.
	Order frontier.Order
	// Holds are the authorities on hold from Retry, with the time their
	// hold ends (some may have ended already).
	Holds map[string]time.Time
	// Seq is the last Seq assigned.
	Seq uint64
	// DiskBytes is the size of the state's files.
	DiskBytes int64
}

// Status reads the counts, the per-authority queue sizes and holds, and
// the leases.
func (r *Reader) Status() (Status, error) {
	s := Status{Order: r.order, Holds: make(map[string]time.Time)}
	if r.closed {
		return s, frontier.ErrClosed
	}
	s.ByAuthority = make(map[string]int)
	v, err := get(r.db, []byte{prefixCounters})
	if err != nil {
		return s, fmt.Errorf("durable: %s: read counters: %w", r.path, err)
	}
	c, err := decodeCounters(v)
	if err != nil {
		return s, &FormatError{Path: r.path, Reason: err.Error()}
	}
	s.Seen, s.Duplicates, s.Rejected, s.Seq = int(c.seen), int(c.dups), int(c.rejects), c.seq
	err = scan(r.db, []byte{prefixAuthority}, func(_, v []byte) error {
		rec, err := decodeAuthRecord(v)
		if err != nil {
			return err
		}
		if rec.queued > 0 {
			s.ByAuthority[rec.name] = rec.queued
			s.Queued += rec.queued
		}
		if !rec.hold.IsZero() {
			s.Holds[rec.name] = rec.hold
		}
		return nil
	})
	if err == nil {
		err = scan(r.db, []byte{prefixLease}, func(_, v []byte) error {
			if len(v) < 4 {
				return errors.New("short lease record")
			}
			s.Leased++
			return nil
		})
	}
	if err != nil {
		return s, &FormatError{Path: r.path, Reason: err.Error()}
	}
	s.DiskBytes = dirSize(r.path)
	return s, nil
}

// Queue calls fn for each request queued for authority (as written by
// frontier.Authority: "https://example.com"), in queue order, until fn
// returns false. It reads the queue from disk as it goes.
func (r *Reader) Queue(authority string, fn func(*frontier.Request) bool) error {
	if r.closed {
		return frontier.ErrClosed
	}
	var id uint32
	found := false
	err := scan(r.db, []byte{prefixAuthority}, func(k, v []byte) error {
		rec, err := decodeAuthRecord(v)
		if err == nil && rec.name == authority && len(k) == 5 {
			id, found = binary.BigEndian.Uint32(k[1:]), true
		}
		return err
	})
	if err != nil || !found {
		return err
	}
	errStop := errors.New("stop")
	err = scan(r.db, queuePrefix(id), func(_, v []byte) error {
		req, err := decodeRequest(v)
		if err != nil {
			return err
		}
		if !fn(req) {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// GetMeta returns a copy of the value stored under key, or an error
// wrapping ErrMetaNotFound.
func (r *Reader) GetMeta(key string) ([]byte, error) {
	if r.closed {
		return nil, frontier.ErrClosed
	}
	return getMeta(r.db, key)
}

// ForEachMeta calls fn for each stored meta key that starts with prefix,
// as Frontier.ForEachMeta does.
func (r *Reader) ForEachMeta(prefix string, fn func(key string, value []byte) error) error {
	if r.closed {
		return frontier.ErrClosed
	}
	return forEachMeta(r.db, prefix, fn)
}

// Close releases the state; the Reader's methods then return
// frontier.ErrClosed. A Reader is not safe for concurrent use with Close.
// Closing twice is harmless.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.db.Close()
}

// dirSize returns the total size of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// DiskBytes returns the size of the frontier's files on disk.
func (f *Frontier) DiskBytes() int64 { return dirSize(f.path) }

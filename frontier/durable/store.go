package durable

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/heedcrawl/heed/frontier"
)

// FormatError is returned by Open and OpenReader for a directory that is
// not a heed frontier state this version of heed can read: written by a
// newer heed (Version above FormatVersion), or by something else.
type FormatError struct {
	Path    string
	Version uint64 // the version found; 0 when there is none
	Reason  string
}

func (e *FormatError) Error() string {
	if e.Version != 0 {
		return fmt.Sprintf("durable: %s: frontier state format version %d; this heed reads version %d", e.Path, e.Version, FormatVersion)
	}
	return fmt.Sprintf("durable: %s: %s", e.Path, e.Reason)
}

// OrderError is returned by Open when the options ask for another Order
// than the one the state was created with: each queue is kept sorted on
// disk in the creation order.
type OrderError struct {
	Path        string
	Stored, Got frontier.Order
}

func (e *OrderError) Error() string {
	return fmt.Sprintf("durable: %s: the state keeps its queues %v; reopen it with frontier.WithOrder(frontier.%s) (asked for %v)",
		e.Path, e.Stored, orderName(e.Stored), e.Got)
}

func orderName(o frontier.Order) string {
	if o == frontier.DepthFirst {
		return "DepthFirst"
	}
	return "BreadthFirst"
}

// ErrMetaNotFound is returned by GetMeta for a key that is not stored.
var ErrMetaNotFound = errors.New("durable: meta key not found")

// cacheSize is Pebble's block cache: it bounds what reads of the store keep
// in memory (the seen set's lookups and queue refills).
const cacheSize = 16 << 20

// openStore opens (or, unless readOnly, creates) the Pebble store at path.
func openStore(path string, readOnly bool) (*pebble.DB, error) {
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:            cache,
		Logger:           slogLogger{},
		ReadOnly:         readOnly,
		ErrorIfNotExists: readOnly,
	}
	for i := range opts.Levels {
		// Most pushes look up a URL that is not in the seen set; the
		// filter answers those without reading a block.
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(path, opts)
	if err != nil {
		return nil, fmt.Errorf("durable: open %s: %w", path, err)
	}
	return db, nil
}

// checkFormat checks the version and order keys of an open store. An empty
// store that may be written is initialised with order; otherwise the
// stored order is returned.
func checkFormat(db *pebble.DB, path string, order frontier.Order, readOnly bool) (frontier.Order, error) {
	v, err := get(db, []byte{prefixVersion})
	if errors.Is(err, pebble.ErrNotFound) {
		empty, err := isEmpty(db)
		if err != nil {
			return 0, err
		}
		if !empty || readOnly {
			return 0, &FormatError{Path: path, Reason: "not a heed frontier state (no format version)"}
		}
		b := db.NewBatch()
		defer b.Close()
		b.Set([]byte{prefixVersion}, versionValue(), nil)
		b.Set([]byte{prefixConfig}, []byte{byte(order)}, nil)
		b.Set([]byte{prefixCounters}, counters{}.encode(), nil)
		if err := b.Commit(pebble.Sync); err != nil {
			return 0, fmt.Errorf("durable: %s: initialise: %w", path, err)
		}
		return order, nil
	}
	if err != nil {
		return 0, fmt.Errorf("durable: %s: read format version: %w", path, err)
	}
	n, err := parseVersion(v)
	if err != nil {
		return 0, &FormatError{Path: path, Reason: err.Error()}
	}
	if n != FormatVersion {
		return 0, &FormatError{Path: path, Version: n}
	}
	c, err := get(db, []byte{prefixConfig})
	if err != nil || len(c) != 1 || c[0] > byte(frontier.DepthFirst) {
		return 0, &FormatError{Path: path, Reason: "damaged frontier state (no valid order record)"}
	}
	return frontier.Order(c[0]), nil
}

// get returns a copy of key's value, or an error wrapping
// pebble.ErrNotFound.
func get(r pebble.Reader, key []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, nil
}

// has reports whether key is stored.
func has(r pebble.Reader, key []byte) (bool, error) {
	_, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	closer.Close()
	return true, nil
}

func isEmpty(r pebble.Reader) (bool, error) {
	it, err := r.NewIter(nil)
	if err != nil {
		return false, err
	}
	empty := !it.First()
	return empty, errors.Join(it.Error(), it.Close())
}

// scan calls fn for each key with prefix p, in key order, until fn returns
// an error. key and value are valid only during the call.
func scan(r pebble.Reader, p []byte, fn func(key, value []byte) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: upperBound(p)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn(it.Key(), v)
		}
		if err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// forEachMeta is ForEachMeta on any reader.
func forEachMeta(r pebble.Reader, prefix string, fn func(key string, value []byte) error) error {
	return scan(r, metaKey(prefix), func(k, v []byte) error {
		return fn(string(k[1:]), append([]byte(nil), v...))
	})
}

func getMeta(r pebble.Reader, key string) ([]byte, error) {
	v, err := get(r, metaKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrMetaNotFound, key)
	}
	return v, err
}

// slogLogger sends Pebble's log lines to log/slog: its routine lines (WAL
// recovery, compactions) at Debug, so that a library user sees nothing by
// default.
type slogLogger struct{}

func (slogLogger) Infof(format string, args ...any) {
	slog.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (slogLogger) Errorf(format string, args ...any) {
	slog.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is called by Pebble on an unrecoverable store failure; Pebble
// expects it not to return.
func (slogLogger) Fatalf(format string, args ...any) {
	slog.Error(fmt.Sprintf(format, args...), "component", "pebble")
	pebble.DefaultLogger.Fatalf(format, args...)
}

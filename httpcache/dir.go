package httpcache

import (
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Store keeps a cache's entries. Keys are 32 lower-case hex digits (a
// frontier fingerprint). Implementations are safe for concurrent use on
// different keys; heed never writes one key from two goroutines at once
// (a fingerprint is leased to one worker at a time).
type Store interface {
	// Load returns the entry stored under key and a reader of its body,
	// which the caller closes. It returns an error wrapping ErrNotFound
	// when there is none, and one wrapping ErrDamaged for an entry it
	// cannot trust. The reader returns an error wrapping ErrDamaged at
	// the end of a body that does not match its length or checksum.
	Load(key string) (*Entry, io.ReadCloser, error)
	// Create starts writing a new entry's body under key; the entry
	// replaces the old one only when the Pending is committed.
	Create(key string) (Pending, error)
	// Update replaces the stored entry's meta data and keeps its body (a
	// revalidation). e's BodySize and BodyCRC must be the stored ones. It
	// returns an error wrapping ErrNotFound when the entry is gone (a
	// store that prunes removed it since it was loaded); the cache then
	// fetches the response whole.
	Update(key string, e *Entry) error
}

// Pending is an entry being written: Write the body, then Commit the meta
// data, or Abort.
type Pending interface {
	io.Writer
	// Commit stores e with the body written, filling in e's BodySize and
	// BodyCRC, and replaces any entry under the key.
	Commit(e *Entry) error
	// Abort drops what was written; the old entry, if any, stays.
	Abort()
}

// Dir is a Store of plain files under one directory: KEY.meta and KEY.body
// in a subdirectory named by the key's first two digits. Open one with
// [OpenDir]; several processes may share a directory, the last writer of a
// key wins. A meta file's modification time is its entry's ReceivedAt, so
// the files themselves say which entries were stored longest ago: that is
// the order in which a Dir opened [WithMaxBytes] removes them.
type Dir struct {
	root     string
	maxBytes int64

	// With a bound, writing holds the keys this process is storing or
	// updating, which a prune leaves alone; mu guards it and is held
	// while a prune removes one entry, so that a write and a removal of
	// one key never interleave.
	mu      sync.Mutex
	writing map[string]int
	// size is the store's bytes as the last prune counted them, plus
	// what was stored since (an estimate between prunes, never below
	// the truth for this process's writes).
	size    atomic.Int64
	pruning atomic.Bool
	pruned  atomic.Int64
}

// DirOption is an optional setting of a Dir.
type DirOption func(*Dir)

// OpenDir returns the Store in directory root, creating it if needed.
// With WithMaxBytes it first prunes the directory to its bound.
func OpenDir(root string, opts ...DirOption) (*Dir, error) {
	if root == "" {
		return nil, errors.New("httpcache: empty cache directory name")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("httpcache: %w", err)
	}
	d := &Dir{root: root}
	for _, o := range opts {
		o(d)
	}
	if err := d.Bound(d.maxBytes); err != nil {
		return nil, err
	}
	return d, nil
}

// Bound sets the store's size bound and prunes the directory to it, as
// WithMaxBytes does in OpenDir: for a program that opens the store before
// it knows it will use it (heed's command line, which may still refuse the
// crawl and must then remove nothing) and bounds it only then. Call it
// before the store is used; 0 or less means no bound.
func (d *Dir) Bound(maxBytes int64) error {
	d.maxBytes = maxBytes
	if maxBytes <= 0 {
		return nil
	}
	if d.writing == nil {
		d.writing = map[string]int{}
	}
	_, err := d.prune()
	return err
}

// Root returns the directory.
func (d *Dir) Root() string { return d.root }

func (d *Dir) paths(key string) (dir, meta, body string, err error) {
	if len(key) != 32 || strings.Trim(key, "0123456789abcdef") != "" {
		return "", "", "", fmt.Errorf("httpcache: key %q is not 32 hex digits", key)
	}
	dir = filepath.Join(d.root, key[:2])
	return dir, filepath.Join(dir, key+".meta"), filepath.Join(dir, key+".body"), nil
}

// Load implements Store.
func (d *Dir) Load(key string) (*Entry, io.ReadCloser, error) {
	_, metaPath, bodyPath, err := d.paths(key)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(metaPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("httpcache: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxMeta+1))
	f.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("httpcache: %w", err)
	}
	e, err := decodeMeta(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", metaPath, err)
	}
	body, err := os.Open(bodyPath)
	if err != nil {
		if _, serr := os.Lstat(metaPath); errors.Is(err, fs.ErrNotExist) && errors.Is(serr, fs.ErrNotExist) {
			// Removed (pruned) between the two reads: no entry, not damage.
			return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrDamaged, bodyPath, err)
	}
	if st, err := body.Stat(); err != nil || st.Size() != e.BodySize {
		body.Close()
		return nil, nil, fmt.Errorf("%w: %s does not have the %d bytes its meta file says", ErrDamaged, bodyPath, e.BodySize)
	}
	return e, &checkedBody{f: body, want: e.BodyCRC, crc: crc32.NewIEEE(), path: bodyPath}, nil
}

// checkedBody checks the body's CRC-32 when it is read to the end.
type checkedBody struct {
	f    *os.File
	crc  hash.Hash32
	want uint32
	path string
}

func (b *checkedBody) Read(p []byte) (int, error) {
	n, err := b.f.Read(p)
	b.crc.Write(p[:n])
	if err == io.EOF && b.crc.Sum32() != b.want {
		return n, fmt.Errorf("%w: %s: checksum %08x, meta file says %08x", ErrDamaged, b.path, b.crc.Sum32(), b.want)
	}
	return n, err
}

func (b *checkedBody) Close() error { return b.f.Close() }

// Create implements Store.
func (d *Dir) Create(key string) (Pending, error) {
	dir, metaPath, bodyPath, err := d.paths(key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("httpcache: %w", err)
	}
	d.begin(key)
	f, err := os.CreateTemp(dir, "."+key+".body-*")
	if err != nil {
		d.done(key)
		return nil, fmt.Errorf("httpcache: %w", err)
	}
	return &dirPending{d: d, key: key, f: f, crc: crc32.NewIEEE(), dir: dir, metaPath: metaPath, bodyPath: bodyPath}, nil
}

type dirPending struct {
	d                  *Dir
	key                string
	f                  *os.File
	crc                hash.Hash32
	n                  int64
	dir                string
	metaPath, bodyPath string
	err                error
}

func (p *dirPending) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.f.Write(b)
	p.crc.Write(b[:n])
	p.n += int64(n)
	if err != nil {
		p.err = fmt.Errorf("httpcache: %w", err)
	}
	return n, p.err
}

func (p *dirPending) Commit(e *Entry) error {
	if p.err != nil {
		p.Abort()
		return p.err
	}
	n, err := p.commit(e)
	p.d.done(p.key)
	if err == nil {
		p.d.stored(n)
	}
	return err
}

// commit puts the body and then the meta file in place and returns how
// many bytes the store grew by.
func (p *dirPending) commit(e *Entry) (int64, error) {
	e.BodySize, e.BodyCRC = p.n, p.crc.Sum32()
	if err := p.f.Close(); err != nil {
		os.Remove(p.f.Name())
		return 0, fmt.Errorf("httpcache: %w", err)
	}
	old := p.d.footprint(p.metaPath, p.bodyPath)
	// The body goes in first: a reader that sees the new meta file finds
	// the new body, and one that finds the old meta with the new body
	// sees a mismatch, a miss, never a wrong page.
	if err := os.Rename(p.f.Name(), p.bodyPath); err != nil {
		os.Remove(p.f.Name())
		return 0, fmt.Errorf("httpcache: %w", err)
	}
	m, err := writeMeta(p.dir, p.metaPath, e)
	return p.n + m - old, err
}

func (p *dirPending) Abort() {
	p.f.Close()
	os.Remove(p.f.Name())
	p.d.done(p.key)
}

// Update implements Store. An entry whose body is gone (pruned since it
// was loaded) is not brought back as a meta file alone: Update returns
// an error wrapping ErrNotFound.
func (d *Dir) Update(key string, e *Entry) error {
	dir, metaPath, bodyPath, err := d.paths(key)
	if err != nil {
		return err
	}
	d.begin(key)
	defer d.done(key)
	if _, err := os.Lstat(bodyPath); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	old := d.footprint(metaPath)
	m, err := writeMeta(dir, metaPath, e)
	if err == nil {
		d.stored(m - old)
	}
	return err
}

// writeMeta replaces a meta file by renaming a complete temporary one,
// dated the entry's ReceivedAt, and returns its size.
func writeMeta(dir, path string, e *Entry) (int64, error) {
	b, err := encodeMeta(e)
	if err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return 0, fmt.Errorf("httpcache: %w", err)
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil && !e.ReceivedAt.IsZero() {
		werr = os.Chtimes(f.Name(), time.Time{}, e.ReceivedAt)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return 0, fmt.Errorf("httpcache: %w", werr)
	}
	return int64(len(b)), nil
}

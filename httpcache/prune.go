package httpcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// WithMaxBytes bounds the directory's size: the bytes of its entries'
// meta and body files, and of what a crash left behind. OpenDir prunes
// the directory to the bound, and whenever storing an entry takes the
// store past it, the entries stored longest ago (the oldest ReceivedAt)
// are removed until the store is back to nine tenths of it, so that a
// crawl at the bound does not count the directory at every page. A
// pruned entry is simply gone: the next request for it is a miss and its
// response is stored again. 0 (the default) never prunes.
//
// Removal takes the meta file first, so a reader finds the entry whole
// or not at all; a prune leaves alone the entries this process is
// writing, and one rewritten since the prune counted it. Leftovers of a
// crash (temporary files, a body without its meta file) older than an
// hour are removed by every prune. Between prunes the size is this
// process's estimate: processes sharing a directory each count their own
// writes and meet the truth at their next prune, so the bound holds for
// the directory give or take what the others stored meanwhile, and an
// entry another process was writing while this one pruned it may be left
// damaged (then a miss, counted as damaged, and stored again).
func WithMaxBytes(n int64) DirOption { return func(d *Dir) { d.maxBytes = max(0, n) } }

// MaxBytes returns the directory's bound (0: none).
func (d *Dir) MaxBytes() int64 { return d.maxBytes }

// Pruned returns the number of entries removed to keep the directory
// within its bound since it was opened.
func (d *Dir) Pruned() int64 { return d.pruned.Load() }

// leftoverAge is how old a temporary file or a body without its meta file
// must be before a prune removes it: a younger one may be an entry
// another process is writing now.
const leftoverAge = time.Hour

// begin and done mark a key this process is writing, which prunes skip.
func (d *Dir) begin(key string) {
	if d.writing == nil {
		return
	}
	d.mu.Lock()
	d.writing[key]++
	d.mu.Unlock()
}

func (d *Dir) done(key string) {
	if d.writing == nil {
		return
	}
	d.mu.Lock()
	if d.writing[key]--; d.writing[key] <= 0 {
		delete(d.writing, key)
	}
	d.mu.Unlock()
}

// footprint returns the bytes of the files at paths that exist (0
// without a bound: nothing counts them).
func (d *Dir) footprint(paths ...string) int64 {
	if d.maxBytes <= 0 {
		return 0
	}
	var n int64
	for _, p := range paths {
		if st, err := os.Lstat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}

// stored counts n more bytes in the store and prunes when that takes it
// past the bound. A store that shrank (a smaller entry replacing a larger
// one) is not counted down: a write made while a prune counts the
// directory could otherwise bring the count below the truth, and a count
// too high only prunes sooner, when the directory is counted again. One prune runs at a time; a write made while it runs is
// left to it: the pruner checks the count again when it is done, and
// prunes again if those writes took the store past the bound. It stops
// when a prune fails or cannot get the store within the bound (entries
// being written are spared), until the next write.
func (d *Dir) stored(n int64) {
	if d.maxBytes <= 0 {
		return
	}
	d.size.Add(max(n, 0))
	for d.size.Load() > d.maxBytes && d.pruning.CompareAndSwap(false, true) {
		fits, err := d.prune()
		d.pruning.Store(false)
		if err != nil || !fits {
			return
		}
	}
}

// scanned is what a prune found of one key.
type scanned struct {
	key                string
	meta, body         fs.FileInfo
	metaPath, bodyPath string
}

func (s *scanned) bytes() int64 {
	var n int64
	if s.meta != nil {
		n += s.meta.Size()
	}
	if s.body != nil {
		n += s.body.Size()
	}
	return n
}

// leftover is a file a crash may have left: a temporary file, or a body
// whose meta file is gone.
type leftover struct {
	key, path string
	info      fs.FileInfo
}

// prune counts the directory, removes old leftovers and, when the store
// is over its bound, the entries stored longest ago until it is at nine
// tenths of it. It reports whether the store is then within the bound
// (writes made meanwhile aside).
func (d *Dir) prune() (fits bool, err error) {
	before := d.size.Swap(0)
	entries, leftovers, total, err := d.scan()
	if err != nil {
		d.size.Add(before)
		return false, err
	}
	now := time.Now()
	for _, l := range leftovers {
		if now.Sub(l.info.ModTime()) > leftoverAge && d.removeLeftover(l) {
			total -= l.info.Size()
		}
	}
	if total > d.maxBytes {
		target := d.maxBytes - d.maxBytes/10
		slices.SortFunc(entries, func(a, b *scanned) int {
			if c := a.meta.ModTime().Compare(b.meta.ModTime()); c != 0 {
				return c
			}
			return strings.Compare(a.key, b.key)
		})
		for _, e := range entries {
			if total <= target {
				break
			}
			if d.remove(e) {
				total -= e.bytes()
				d.pruned.Add(1)
			}
		}
	}
	d.size.Add(total)
	return total <= d.maxBytes, nil
}

// scan lists the entries (every key with a meta file), the leftovers and
// the bytes of both. Files whose names are not the store's are neither
// counted nor touched.
func (d *Dir) scan() (entries []*scanned, leftovers []leftover, total int64, err error) {
	subs, err := os.ReadDir(d.root)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("httpcache: %w", err)
	}
	for _, sub := range subs {
		if !sub.IsDir() || len(sub.Name()) != 2 || !isHex(sub.Name()) {
			continue
		}
		dir := filepath.Join(d.root, sub.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("httpcache: %w", err)
		}
		byKey := map[string]*scanned{}
		for _, f := range files {
			name := f.Name()
			info, err := f.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue // removed since the listing, or not the store's
			}
			if strings.HasPrefix(name, ".") {
				if len(name) > 33 && isKey(name[1:33]) {
					leftovers = append(leftovers, leftover{key: name[1:33], path: filepath.Join(dir, name), info: info})
					total += info.Size()
				}
				continue
			}
			key, ext, ok := strings.Cut(name, ".")
			if !ok || !isKey(key) || key[:2] != sub.Name() || (ext != "meta" && ext != "body") {
				continue
			}
			s := byKey[key]
			if s == nil {
				s = &scanned{key: key, metaPath: filepath.Join(dir, key+".meta"), bodyPath: filepath.Join(dir, key+".body")}
				byKey[key] = s
			}
			if ext == "meta" {
				s.meta = info
			} else {
				s.body = info
			}
			total += info.Size()
		}
		for _, s := range byKey {
			if s.meta == nil {
				leftovers = append(leftovers, leftover{key: s.key, path: s.bodyPath, info: s.body})
				continue
			}
			entries = append(entries, s)
		}
	}
	return entries, leftovers, total, nil
}

// remove deletes an entry, meta file first, unless this process is
// writing it or it was rewritten since the scan.
func (d *Dir) remove(e *scanned) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.writing[e.key] > 0 {
		return false
	}
	if st, err := os.Lstat(e.metaPath); err != nil || !st.ModTime().Equal(e.meta.ModTime()) || st.Size() != e.meta.Size() {
		return false
	}
	if err := os.Remove(e.metaPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	os.Remove(e.bodyPath)
	return true
}

// removeLeftover deletes a leftover file unless this process is writing
// its key or it changed since the scan (a body whose meta file has
// appeared is an entry now).
func (d *Dir) removeLeftover(l leftover) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.writing[l.key] > 0 {
		return false
	}
	if st, err := os.Lstat(l.path); err != nil || !st.ModTime().Equal(l.info.ModTime()) || st.Size() != l.info.Size() {
		return false
	}
	if meta := strings.TrimSuffix(l.path, ".body") + ".meta"; strings.HasSuffix(l.path, ".body") {
		if _, err := os.Lstat(meta); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	err := os.Remove(l.path)
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

func isKey(s string) bool { return len(s) == 32 && isHex(s) }

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }

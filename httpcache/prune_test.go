package httpcache

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func keyOf(i int) string { return fmt.Sprintf("%032x", i) }

// store writes entry i with a body of size bytes, received i minutes
// after base (or at when, if not zero).
func store(t *testing.T, d *Dir, i, size int, when time.Time) {
	t.Helper()
	p, err := d.Create(keyOf(i))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, strings.Repeat("x", size))
	if when.IsZero() {
		when = base.Add(time.Duration(i) * time.Minute)
	}
	e := &Entry{Method: "GET", URL: fmt.Sprintf("http://a.example/%d", i), Status: 200, Header: http.Header{}, ReceivedAt: when}
	if err := p.Commit(e); err != nil {
		t.Fatal(err)
	}
}

// dirBytes is the bytes of every file under root, measured.
func dirBytes(t *testing.T, root string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(root, func(_ string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// present lists which of entries 0..n-1 the store has.
func present(t *testing.T, d *Dir, n int) []bool {
	t.Helper()
	out := make([]bool, n)
	for i := range out {
		e, rc, err := d.Load(keyOf(i))
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			t.Fatalf("entry %d: %v", i, err)
		default:
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || int64(len(b)) != e.BodySize {
				t.Fatalf("entry %d: %d bytes, %v", i, len(b), err)
			}
			out[i] = true
		}
	}
	return out
}

// entryBytes is the bytes one entry of store(…, size) takes, measured.
func entryBytes(t *testing.T, size int) int64 {
	root := t.TempDir()
	d, _ := OpenDir(root)
	store(t, d, 0, size, time.Time{})
	return dirBytes(t, root)
}

// TestPruneKeepsTheNewestWithinTheBound: with a bound of five entries, the
// store never holds more than the bound after a store, and what it holds
// are the entries received last; Pruned counts the others.
func TestPruneKeepsTheNewestWithinTheBound(t *testing.T) {
	one := entryBytes(t, 1000)
	bound := 5 * one
	root := t.TempDir()
	d, err := OpenDir(root, WithMaxBytes(bound))
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		store(t, d, i, 1000, time.Time{})
		if got := dirBytes(t, root); got > bound {
			t.Fatalf("after storing entry %d the store holds %d bytes; bound %d", i, got, bound)
		}
	}
	have := present(t, d, n)
	kept := 0
	for i := n - 1; i >= 0 && have[i]; i-- {
		kept++
	}
	for i := 0; i < n-kept; i++ {
		if have[i] {
			t.Fatalf("entry %d kept although entry %d, newer, was pruned: %v", i, n-kept-1, have)
		}
	}
	if kept < 4 || kept > 5 || d.Pruned() != int64(n-kept) {
		t.Fatalf("kept the newest %d, pruned %d; want 4 or 5 kept (pruned to nine tenths of five) and the rest counted", kept, d.Pruned())
	}
}

// An entry confirmed by the site since (a revalidation updates its
// ReceivedAt) counts as stored then: it outlives older ones.
func TestPruneOrderIsReceivedAt(t *testing.T) {
	one := entryBytes(t, 1000)
	d, _ := OpenDir(t.TempDir(), WithMaxBytes(4*one))
	for i := range 4 {
		store(t, d, i, 1000, time.Time{})
	}
	e, rc, err := d.Load(keyOf(0))
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	e.ReceivedAt = base.Add(time.Hour)
	if err := d.Update(keyOf(0), e); err != nil {
		t.Fatal(err)
	}
	store(t, d, 4, 1000, base.Add(2*time.Hour))
	have := present(t, d, 5)
	if !have[0] || have[1] || !have[4] {
		t.Fatalf("present %v; want entry 1, the oldest, pruned and the revalidated entry 0 kept", have)
	}
}

// TestOpenDirPrunes: a store opened with a bound smaller than it is
// pruned at once; leftovers of a crash older than an hour are removed,
// younger ones (perhaps being written) and files not the store's stay.
func TestOpenDirPrunes(t *testing.T) {
	one := entryBytes(t, 1000)
	root := t.TempDir()
	d, _ := OpenDir(root)
	for i := range 10 {
		store(t, d, i, 1000, time.Time{})
	}
	sub := filepath.Join(root, keyOf(0)[:2])
	old := time.Now().Add(-2 * time.Hour)
	leftovers := map[string]bool{ // path: removed
		filepath.Join(sub, "."+keyOf(77)+".body-123"): true,
		filepath.Join(sub, keyOf(78)+".body"):         true, // its meta is gone
		filepath.Join(sub, "."+keyOf(79)+".meta-456"): false,
		filepath.Join(root, "notes.txt"):              false,
	}
	for p, stale := range leftovers {
		os.WriteFile(p, []byte("left"), 0o644)
		if stale {
			os.Chtimes(p, old, old)
		}
	}
	d, err := OpenDir(root, WithMaxBytes(3*one))
	if err != nil {
		t.Fatal(err)
	}
	for p, removed := range leftovers {
		if _, err := os.Stat(p); removed != errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: removed %v, want %v", filepath.Base(p), !removed, removed)
		}
	}
	if got := dirBytes(t, root) - int64(len("left")*2); got > 3*one {
		t.Errorf("the store holds %d bytes after OpenDir; bound %d", got, 3*one)
	}
	have := present(t, d, 10)
	if !have[9] || !have[8] || have[0] || d.Pruned() < 7 {
		t.Errorf("present %v, pruned %d; want the newest kept", have, d.Pruned())
	}
}

// TestPrunedEntryIsFetchedAgain: a replay whose entries were pruned asks
// the site for them, serves what is left, and finds nothing damaged.
func TestPrunedEntryIsFetchedAgain(t *testing.T) {
	clk := &clock{t: base}
	one := entryBytes(t, 1000)
	d, err := OpenDir(t.TempDir(), WithMaxBytes(3*one))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(d, WithClock(clk.now))
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat(r.URL.Path[1:], 1000)[:1000])
	}}
	f := c.Stage()(s)
	page := func(i int) *frontier.Request { return &frontier.Request{URL: fmt.Sprintf("http://a.example/%d", i)} }
	for i := range 6 {
		get(t, f, page(i))
		clk.add(time.Minute)
	}
	if r := get(t, f, page(5)); s.hits() != 6 || !r.FromCache {
		t.Fatalf("the newest page: %d site hits, from cache %v; want it served", s.hits(), r.FromCache)
	}
	r := get(t, f, page(0))
	if s.hits() != 7 || r.FromCache || string(r.Body) != strings.Repeat("0", 1000) {
		t.Fatalf("a pruned page: %d site hits, from cache %v; want it fetched again", s.hits(), r.FromCache)
	}
	if st := c.Stats(); st.Damaged != 0 || st.Pruned == 0 || st.Pruned != d.Pruned() {
		t.Errorf("stats %+v; want pruned entries counted and nothing damaged", st)
	}
}

// TestPruneWithConcurrentWorkers: workers storing and replaying their own
// pages while others' stores prune the directory never see a damaged
// entry or a wrong body, and once they are done the store is within its
// bound (a write made while a prune ran is left to that prune's pruner,
// who checks again).
func TestPruneWithConcurrentWorkers(t *testing.T) {
	clk := &clock{t: base}
	one := entryBytes(t, 1000)
	root := t.TempDir()
	d, err := OpenDir(root, WithMaxBytes(10*one))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(d, WithClock(clk.now))
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat(r.URL.Path, 1000)[:1000])
	}}
	f := c.Stage()(s)
	const workers, pages, rounds = 6, 8, 4
	var wg sync.WaitGroup
	errs := make(chan string, workers*pages*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				for p := range pages {
					path := fmt.Sprintf("/w%d/p%d", w, p)
					resp, err := f.Fetch(t.Context(), &frontier.Request{URL: "http://a.example" + path})
					if err != nil {
						errs <- err.Error()
						continue
					}
					if want := strings.Repeat(path, 1000)[:1000]; string(resp.Body) != want {
						errs <- fmt.Sprintf("round %d %s: a wrong body (%d bytes)", round, path, len(resp.Body))
					}
					clk.add(time.Second)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	st := c.Stats()
	if st.Damaged != 0 || st.Pruned == 0 || st.Hits+st.Misses != workers*pages*rounds {
		t.Fatalf("stats %+v; want prunes, no damage, every request a hit or a miss", st)
	}
	if got := dirBytes(t, root); got > 10*one {
		t.Errorf("the store holds %d bytes; bound %d", got, 10*one)
	}
}

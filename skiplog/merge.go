package skiplog

import (
	"bufio"
	"bytes"
	"container/heap"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// MergeStats says what [Merge] did.
type MergeStats struct {
	// Summary counts the records written, one per URL.
	Summary
	// Read is the number of records read from all inputs.
	Read int
	// Duplicates is the number of records dropped because an earlier
	// record (or, at the same time, one from an earlier input) had the
	// same URL. Only a URL fetched twice by a fleet, after its lease
	// expired, gets two records.
	Duplicates int
	// DuplicatesByReason counts the dropped records by their reason.
	DuplicatesByReason map[Reason]int
}

// InputError is a problem with one input of [Merge]: a line that is not a
// complete record (the last line of a log whose writer was killed
// mid-write, for example) or a record earlier than the one before it in
// the same input. Input is the input's name: the file name for an
// *os.File, or whatever its Name method says, else "input N" counting from
// 1.
type InputError struct {
	Input string
	Line  int
	Err   error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("skiplog: %s line %d: %v", e.Input, e.Line, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// ErrOutOfOrder is wrapped by the [InputError] of a record earlier than
// the record before it in the same input.
var ErrOutOfOrder = errors.New("record earlier than the one before it; each input of a merge must be in time order, as heed's Writer writes it")

// Merge combines the skip logs of the processes of one crawl into one skip
// log written to w: the records of all inputs in time order (ties keep the
// order of the inputs, then of the lines), with exactly one record per URL.
// When several records have the same URL, which happens when a request's
// lease expired and two processes handled it, the earliest is kept and the
// others are counted in Duplicates. Each record is written as the line it
// was read from, so fields this version of heed does not know survive.
//
// Each input must be in time order, which the skip log of one heed process
// is: its Writer stamps records as it writes them. Merge does not sort: it
// reads one record ahead in each input (a k-way merge), so its memory is
// one line per input plus the set of URLs written, 16 bytes of SHA-256
// per URL (about 30 bytes with the map's overhead). An input that goes
// back in time fails the merge with an [*InputError] wrapping
// [ErrOutOfOrder], naming the input and the line, rather than producing a
// log out of order or keeping a later record of a URL; a line that is not a
// complete record fails it likewise. Blank lines are skipped. An input
// named by a Name method (an *os.File has one) is called so in errors.
//
// When Merge fails, w may hold part of the output: write to a temporary
// file and rename it on success, as heed skiplog merge does.
func Merge(w io.Writer, inputs ...io.Reader) (MergeStats, error) {
	st := MergeStats{DuplicatesByReason: make(map[Reason]int)}
	st.ByReason = make(map[Reason]int)
	st.ByAuthority = make(map[string]map[Reason]int)
	h := make(mergeHeap, 0, len(inputs))
	for i, r := range inputs {
		c := newCursor(i, r)
		ok, err := c.advance()
		if err != nil {
			return st, err
		}
		if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	bw := bufio.NewWriter(w)
	seen := make(map[[16]byte]struct{})
	for len(h) > 0 {
		c := h[0]
		st.Read++
		key := fingerprint(c.rec.Key())
		if _, dup := seen[key]; dup {
			st.Duplicates++
			st.DuplicatesByReason[c.rec.Reason]++
		} else {
			seen[key] = struct{}{}
			st.Summary.Add(&c.rec)
			bw.Write(c.line)
			if err := bw.WriteByte('\n'); err != nil {
				return st, fmt.Errorf("skiplog: merge: write: %w", err)
			}
		}
		ok, err := c.advance()
		if err != nil {
			return st, err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("skiplog: merge: write: %w", err)
	}
	return st, nil
}

// fingerprint is the seen set's key for a URL: the first 16 bytes of its
// SHA-256, as written in the record. A collision, at about 2^-64 for four
// billion URLs, would drop a record as a duplicate.
func fingerprint(url string) [16]byte {
	sum := sha256.Sum256([]byte(url))
	var k [16]byte
	copy(k[:], sum[:16])
	return k
}

// cursor is one input of a merge, one record ahead.
type cursor struct {
	index int
	name  string
	sc    *bufio.Scanner
	n     int // line number of line
	line  []byte
	rec   Record
	prev  time.Time // time of the previous record
	pline int       // its line number
}

func newCursor(i int, r io.Reader) *cursor {
	name := fmt.Sprintf("input %d", i+1)
	if nm, ok := r.(interface{ Name() string }); ok && nm.Name() != "" {
		name = nm.Name()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return &cursor{index: i, name: name, sc: sc}
}

// advance reads the input's next record; false at the end of the input.
func (c *cursor) advance() (bool, error) {
	for c.sc.Scan() {
		c.n++
		b := bytes.TrimSpace(c.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return false, &InputError{Input: c.name, Line: c.n, Err: fmt.Errorf("not a complete record: %w", err)}
		}
		if rec.URL == "" || rec.Reason == "" {
			return false, &InputError{Input: c.name, Line: c.n, Err: errors.New("record without url or reason")}
		}
		if c.pline > 0 && rec.Time.Before(c.prev) {
			return false, &InputError{Input: c.name, Line: c.n, Err: fmt.Errorf("%w (%s, line %d has %s)",
				ErrOutOfOrder, rec.Time.Format(time.RFC3339Nano), c.pline, c.prev.Format(time.RFC3339Nano))}
		}
		c.prev, c.pline = rec.Time, c.n
		// The scanner reuses its buffer: keep a copy of the line.
		c.line = append(c.line[:0], b...)
		c.rec = rec
		return true, nil
	}
	if err := c.sc.Err(); err != nil {
		return false, &InputError{Input: c.name, Line: c.n + 1, Err: err}
	}
	return false, nil
}

// mergeHeap orders the inputs by their next record's time, then by input.
type mergeHeap []*cursor

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if c := h[i].rec.Time.Compare(h[j].rec.Time); c != 0 {
		return c < 0
	}
	return h[i].index < h[j].index
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *mergeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

package skiplog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"
)

// Writer appends records to a JSON Lines stream, one complete line per
// record, and keeps a [Summary] of what it wrote.
//
// Each record is handed to the underlying writer in a single Write call and
// is not buffered by heed, so a crawl stopped by a signal, or killed, leaves
// a file whose every line is a complete record. A failed write is returned
// to the caller and remembered: the record is still counted in the summary
// under Failed, so that an incomplete log is never mistaken for a complete
// one.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	buf     bytes.Buffer
	enc     *json.Encoder
	sum     Summary
	err     error
	syncer  interface{ Sync() error }
	durable bool
	now     func() time.Time
	closer  io.Closer
}

// WriterOption configures a Writer.
type WriterOption func(*Writer)

// WithSync makes the Writer call Sync on the underlying file after every
// record, so that a record is on disk before Write returns. Durable crawls
// use it; it costs one fsync per excluded URL.
func WithSync() WriterOption { return func(w *Writer) { w.durable = true } }

// WithClock sets the clock used to stamp records whose Time is zero.
func WithClock(now func() time.Time) WriterOption { return func(w *Writer) { w.now = now } }

// NewWriter returns a Writer appending to w. When w is nil, records are only
// summarised (heed runs without a skip-log file still report reasons).
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	sw := &Writer{w: w, now: time.Now}
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	if s, ok := w.(interface{ Sync() error }); ok {
		sw.syncer = s
	}
	for _, o := range opts {
		o(sw)
	}
	return sw
}

// Create opens (creating or appending to) the file at path and returns a
// Writer that closes it on Close.
func Create(path string, opts ...WriterOption) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("skiplog: %w", err)
	}
	w := NewWriter(f, opts...)
	w.closer = f
	return w, nil
}

// Write appends one record. Records with a zero Time are stamped now. The
// record is counted in the summary whether or not the write succeeds. A
// URL or referrer longer than MaxURLBytes is stored cut, with its length.
func (w *Writer) Write(r *Record) error {
	if r == nil {
		return errors.New("skiplog: nil record")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.Time.IsZero() {
		r.Time = w.now()
	}
	w.sum.add(r)
	if w.w == nil {
		return nil
	}
	w.buf.Reset()
	if err := w.enc.Encode(r.capped()); err != nil {
		w.sum.Failed++
		return fmt.Errorf("skiplog: encode %s: %w", r.URL, err)
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		w.sum.Failed++
		w.err = err
		return fmt.Errorf("skiplog: write %s: %w", r.URL, err)
	}
	if w.durable && w.syncer != nil {
		if err := w.syncer.Sync(); err != nil {
			w.err = err
			return fmt.Errorf("skiplog: sync: %w", err)
		}
	}
	return nil
}

// Summary returns a copy of the counts of the records written so far.
func (w *Writer) Summary() Summary {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sum.clone()
}

// Err returns the first write error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close syncs and closes the file opened by Create; for a Writer made by
// NewWriter it only syncs, when the underlying writer can.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	if w.syncer != nil {
		err = w.syncer.Sync()
	}
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
		w.closer = nil
	}
	return err
}

// Summary counts skip-log records by reason and by authority.
type Summary struct {
	Total       int
	Failed      int // records that could not be written
	ByReason    map[Reason]int
	ByAuthority map[string]map[Reason]int
}

func (s *Summary) add(r *Record) {
	if s.ByReason == nil {
		s.ByReason = make(map[Reason]int)
		s.ByAuthority = make(map[string]map[Reason]int)
	}
	s.Total++
	s.ByReason[r.Reason]++
	a := s.ByAuthority[r.Authority]
	if a == nil {
		a = make(map[Reason]int)
		s.ByAuthority[r.Authority] = a
	}
	a[r.Reason]++
}

// Add counts one more record; it is how a Summary is built from a file.
func (s *Summary) Add(r *Record) { s.add(r) }

func (s Summary) clone() Summary {
	c := Summary{Total: s.Total, Failed: s.Failed, ByReason: make(map[Reason]int, len(s.ByReason)), ByAuthority: make(map[string]map[Reason]int, len(s.ByAuthority))}
	for k, v := range s.ByReason {
		c.ByReason[k] = v
	}
	for a, m := range s.ByAuthority {
		cm := make(map[Reason]int, len(m))
		for k, v := range m {
			cm[k] = v
		}
		c.ByAuthority[a] = cm
	}
	return c
}

// Format writes the summary as a short table: totals by reason in the
// documented order, then by authority.
func (s Summary) Format(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "skipped: %d URLs\n", s.Total)
	for _, r := range Reasons {
		if n := s.ByReason[r]; n > 0 {
			fmt.Fprintf(bw, "  %-22s %d\n", r, n)
		}
	}
	for r, n := range s.ByReason { // reasons outside the vocabulary, if any
		if !known(r) {
			fmt.Fprintf(bw, "  %-22s %d\n", r, n)
		}
	}
	if len(s.ByAuthority) > 0 {
		auths := make([]string, 0, len(s.ByAuthority))
		for a := range s.ByAuthority {
			auths = append(auths, a)
		}
		sort.Strings(auths)
		fmt.Fprintln(bw, "  by authority:")
		for _, a := range auths {
			fmt.Fprintf(bw, "    %s:", a)
			for _, r := range Reasons {
				if n := s.ByAuthority[a][r]; n > 0 {
					fmt.Fprintf(bw, " %s=%d", r, n)
				}
			}
			fmt.Fprintln(bw)
		}
	}
	if s.Failed > 0 {
		fmt.Fprintf(bw, "  WARNING: %d records could not be written\n", s.Failed)
	}
	return bw.Flush()
}

func known(r Reason) bool {
	for _, k := range Reasons {
		if k == r {
			return true
		}
	}
	return false
}

package skiplog

import (
	"errors"
	"sync"
)

// OnceWriter is a [Writer] that keeps one record per URL: the first
// record of a URL is written, any later one, whatever its reason, is not
// (invariant 7: exactly one record for every URL not fetched, even when
// two stages turn it away). URLs are told apart by their Key, so a URL
// longer than MaxURLBytes is one URL however it is cut.
//
// It keeps a 16-byte fingerprint (the first bytes of a SHA-256, as
// [Merge] does) of every URL it saw: about 46 bytes of memory per
// distinct URL (1 million skipped URLs, some 46 MB, on Go 1.26), the
// same order as a frontier's set of URLs seen; nothing else grows. A
// fingerprint collision, at about 2^-64 for four billion URLs, would
// drop a record as a duplicate. A crawl whose skip log must outlive the
// process (a resumable job) needs its seen set on disk instead.
type OnceWriter struct {
	w *Writer

	mu   sync.Mutex
	seen map[[16]byte]struct{}
}

// NewOnceWriter returns a OnceWriter writing to w.
func NewOnceWriter(w *Writer) *OnceWriter {
	return &OnceWriter{w: w, seen: make(map[[16]byte]struct{})}
}

// Record writes r unless its URL has a record already, and reports
// whether r was the URL's first: a first record whose write failed is
// first all the same (the Writer counts it under Failed and keeps the
// error for Err), and its error is returned. Records are written in the
// order Record is called.
func (o *OnceWriter) Record(r *Record) (first bool, err error) {
	if r == nil {
		return false, errors.New("skiplog: nil record")
	}
	fp := fingerprint(r.Key())
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, dup := o.seen[fp]; dup {
		return false, nil
	}
	o.seen[fp] = struct{}{}
	return true, o.w.Write(r)
}

// Summary returns the counts of the records written so far (the
// Writer's Summary).
func (o *OnceWriter) Summary() Summary { return o.w.Summary() }

// Err returns the first write error, if any (the Writer's Err).
func (o *OnceWriter) Err() error { return o.w.Err() }

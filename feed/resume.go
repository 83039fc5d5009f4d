package feed

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotResumable is wrapped by Resume's error for a feed format
// that cannot be continued after a crash.
var ErrNotResumable = errors.New("feed cannot be resumed")

// Resume opens the feed at path to append to it, as a crawl resumed
// from its state (package jobstate) does, so that the feed of a job holds the
// items of all its runs. The format is chosen as Open chooses it.
//
// A last record cut by a crash is dropped first (its page was not done,
// so the resumed crawl fetches it again and writes it whole). A CSV feed
// keeps the columns of its header line, and no second header is written.
// JSON Lines and CSV can be resumed; a JSON array (its closing bracket is
// written at the end of a run) and a gzip stream (cut by a crash, it
// cannot be continued) cannot: Resume refuses them with an error
// wrapping ErrNotResumable. The path "-" is standard output, which has
// nothing to resume: Resume is then Open.
//
// The items of a page that was in flight at a crash are written again
// when the page is fetched again.
func Resume(path string, opts ...Option) (*Feed, error) {
	if path == "-" {
		return Open(path, opts...)
	}
	cfg, err := feedConfigFor(path, opts, ".jsonl or .csv")
	if err != nil {
		return nil, err
	}
	f := cfg.format
	switch {
	case cfg.gzip:
		return nil, fmt.Errorf("feed %s: %w: a gzip stream cut by a crash cannot be continued; write it uncompressed and compress it when the job is complete", path, ErrNotResumable)
	case f == JSONFormat:
		return nil, fmt.Errorf("feed %s: %w: a JSON array is closed at the end of each run; use JSON Lines (.jsonl) or CSV for a job that resumes", path, ErrNotResumable)
	}
	file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("feed: %w", err)
	}
	fail := func(err error) (*Feed, error) {
		file.Close()
		return nil, fmt.Errorf("feed %s: %w", path, err)
	}
	if _, err := RepairTail(file, f == CSVFormat); err != nil {
		return fail(err)
	}
	var header []string
	if f == CSVFormat {
		if header, err = csvHeader(file); err != nil {
			return fail(err)
		}
	}
	e, err := cfg.exporter(f, file)
	if err != nil {
		return fail(err)
	}
	if c, ok := e.(*CSV); ok && header != nil {
		c.cols, c.fixed, c.header = header, true, true
	}
	return &Feed{Exporter: e, path: path, format: f, file: file, own: true}, nil
}

// csvHeader reads the first record of a CSV file: its header, or nil for
// an empty file.
func csvHeader(f *os.File) ([]string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	h, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("not a CSV file heed can append to: %w", err)
	}
	return h, nil
}

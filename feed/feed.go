package feed

import (
	"compress/gzip"
	"errors"
	"fmt"
	"github.com/heedcrawl/heed/pipeline"
	"io"
	"os"
)

// Feed is a pipeline.Exporter that owns its output: a file it created (or
// standard output), an optional gzip stream, and the format's exporter on
// top. Open makes one from a file name, as `heed crawl --out` does;
// Close finishes the format (the JSON array's bracket, the CSV header of
// an empty feed), ends the gzip stream and closes the file.
//
// Items are written as they are exported, each as one write, so a feed
// that is not compressed holds only complete records even if the process
// is killed. A gzip stream is complete only after Close: a crawl stopped
// by its context, or by SIGINT through the command line, closes it; a
// killed process leaves a truncated stream whose records up to the cut
// are still readable.
type Feed struct {
	pipeline.Exporter
	path   string
	format Format
	gz     *gzip.Writer
	file   *os.File
	own    bool
	closed bool
}

// Option configures Open.
type Option func(*feedConfig)

// feedConfig is what the options set; feedConfigFor then resolves format
// and gzip from them and the file name.
type feedConfig struct {
	format   Format
	gzip     bool
	gzipSet  bool
	stdout   io.Writer
	exporter func(Format, io.Writer) (pipeline.Exporter, error)
}

// feedConfigFor applies opts and resolves the feed's format (WithFormat,
// else the name's extension) and compression (WithGzip, else a ".gz"
// suffix), as Open documents. names lists the extensions the caller
// can write, for the error about a name that tells no format.
func feedConfigFor(path string, opts []Option, names string) (feedConfig, error) {
	cfg := feedConfig{stdout: os.Stdout, exporter: NewExporter}
	for _, o := range opts {
		o(&cfg)
	}
	f, gz, ok := FormatFor(path)
	if cfg.format != "" {
		var err error
		if f, err = ParseFormat(string(cfg.format)); err != nil {
			return cfg, fmt.Errorf("feed %s: %w", path, err)
		}
	} else if !ok {
		return cfg, fmt.Errorf("feed %s: cannot tell the format from the name; name it %s or set the format", path, names)
	}
	if !cfg.gzipSet {
		cfg.gzip = gz
	}
	cfg.format = f
	return cfg, nil
}

// WithFormat sets the format instead of taking it from the name's
// extension.
func WithFormat(f Format) Option { return func(c *feedConfig) { c.format = f } }

// WithGzip compresses (or, with false, does not compress) whatever the
// name's suffix says.
func WithGzip(on bool) Option { return func(c *feedConfig) { c.gzip, c.gzipSet = on, true } }

// WithStdout sets where the path "-" writes (default os.Stdout).
func WithStdout(w io.Writer) Option { return func(c *feedConfig) { c.stdout = w } }

// WithExporter replaces heed's exporter for the format, for a feed whose
// items need a writer of their own (CSV with fixed columns, say).
func WithExporter(fn func(Format, io.Writer) (pipeline.Exporter, error)) Option {
	return func(c *feedConfig) { c.exporter = fn }
}

// Open creates (or truncates) the file at path and returns a feed
// writing to it; the path "-" writes to standard output. The format comes
// from the extension (.jsonl/.ndjson/.jl, .json, .csv) unless WithFormat
// sets it; a ".gz" suffix compresses the feed unless WithGzip says
// otherwise. A name without a known extension and no WithFormat is an
// error, and so is standard output without WithFormat.
func Open(path string, opts ...Option) (*Feed, error) {
	cfg, err := feedConfigFor(path, opts, ".jsonl, .json or .csv (optionally .gz)")
	if err != nil {
		return nil, err
	}
	f := cfg.format
	feed := &Feed{path: path, format: f}
	var w io.Writer
	if path == "-" {
		w = cfg.stdout
	} else {
		file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("feed: %w", err)
		}
		feed.file, feed.own, w = file, true, file
	}
	if cfg.gzip {
		feed.gz = gzip.NewWriter(w)
		w = feed.gz
	}
	e, err := cfg.exporter(f, w)
	if err != nil {
		if feed.own {
			feed.file.Close()
		}
		return nil, fmt.Errorf("feed %s: %w", path, err)
	}
	feed.Exporter = e
	return feed, nil
}

// Path returns the feed's path ("-" for standard output).
func (f *Feed) Path() string { return f.path }

// Format returns the feed's format.
func (f *Feed) Format() Format { return f.format }

// Close finishes the format, the gzip stream and the file, in that order.
// Calling it again does nothing.
func (f *Feed) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	errs := []error{f.Exporter.Close()}
	if f.gz != nil {
		errs = append(errs, f.gz.Close())
	}
	if f.own {
		errs = append(errs, syncFile(f.file), f.file.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("feed %s: %w", f.path, err)
	}
	return nil
}

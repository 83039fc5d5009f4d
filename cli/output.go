package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/stats"
)

// output is one file a command writes, named by a flag.
type output struct {
	flag      string
	path      string
	isDefault bool // the path is the flag's default, not given
	ofState   bool // the file belongs to the state directory
}

func (o output) String() string {
	if o.isDefault {
		return fmt.Sprintf("%s %s (the default)", o.flag, o.path)
	}
	return fmt.Sprintf("%s %s", o.flag, o.path)
}

// checkOutputs refuses outputs that are one file, compared by their
// cleaned absolute paths and, for files that exist, by os.SameFile (a
// link, a second name); and, with a state directory, outputs that are
// the state's own files (any file inside it but its skip log, which the
// state owns). Empty paths are no output.
func checkOutputs(outs []output, stateDir string) error {
	type file struct {
		output
		abs  string
		info os.FileInfo
	}
	var files []file
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return usageError("%s: %v", o.flag, err)
		}
		fi, _ := os.Stat(abs)
		files = append(files, file{o, abs, fi})
	}
	for i, a := range files {
		for _, b := range files[i+1:] {
			if a.abs == b.abs || a.info != nil && b.info != nil && os.SameFile(a.info, b.info) {
				return usageError("%s and %s are the same file: each output needs its own", a.output, b.output)
			}
		}
	}
	if stateDir == "" {
		return nil
	}
	dir, err := filepath.Abs(stateDir)
	if err != nil {
		return usageError("--state: %v", err)
	}
	for _, f := range files {
		if f.ofState {
			continue
		}
		if rel, err := filepath.Rel(dir, f.abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return usageError("%s is inside the state directory %s, whose files belong to the state: write it elsewhere", f.output, stateDir)
		}
	}
	return nil
}

// refuseExisting refuses, before anything is opened, an output file that
// exists and is not empty: heed replaces or adds to a file only when told
// to, and hint says how ("add --overwrite to replace it"). Standard
// output ("-" or "") and what is not a regular file (a pipe, a device)
// are never refused.
func refuseExisting(flag, path, hint string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		return usageError("%s %s exists and is not empty (%d bytes): %s", flag, path, fi.Size(), hint)
	}
	return nil
}

// lateFile is an output file opened only once every option is accepted:
// the crawler is built with it, and create opens (truncating) the file
// just before the crawl runs.
type lateFile struct{ f *os.File }

func (l *lateFile) create(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	l.f = f
	return nil
}

func (l *lateFile) Write(p []byte) (int, error) {
	if l.f == nil {
		return 0, errors.New("output not open")
	}
	return l.f.Write(p)
}

// Sync lets the skip log's writer sync the file, as it syncs a file.
func (l *lateFile) Sync() error {
	if l.f == nil {
		return nil
	}
	return l.f.Sync()
}

func (l *lateFile) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// guardedFeed is a feed that counts the items it could not write, so that
// a crawl whose feed failed is a failed crawl saying what it lost.
type guardedFeed struct {
	*feed.Feed
	lost     int
	first    error
	closeErr error
	closed   bool
}

func (g *guardedFeed) Export(item any) error {
	err := g.Feed.Export(item)
	if err != nil {
		if g.first == nil {
			g.first = err
		}
		g.lost++
	}
	return err
}

func (g *guardedFeed) Close() error {
	if g.closed {
		return g.closeErr
	}
	g.closed = true
	g.closeErr = g.Feed.Close()
	return g.closeErr
}

// loss says what the feed lost, or nil.
func (g *guardedFeed) loss() error {
	switch {
	case g.lost > 0:
		return fmt.Errorf("the feed %s is incomplete: %d items could not be written (%v)", g.Path(), g.lost, g.first)
	case g.closeErr != nil:
		return fmt.Errorf("the feed %s may be incomplete: finishing it failed (%v)", g.Path(), g.closeErr)
	}
	return nil
}

// checkFeed refuses a --format or --out name that tells no format,
// before anything is opened.
func checkFeed(out, format string) error {
	switch {
	case out == "" && format != "":
		return usageError("--format needs --out")
	case out == "":
		return nil
	case format != "":
		if _, err := feed.ParseFormat(format); err != nil {
			return usageError("--format: %v", err)
		}
	case out == "-":
		return usageError("--out -: name the format with --format (jsonl, json or csv)")
	default:
		if _, _, ok := feed.FormatFor(out); !ok {
			return usageError("--out %s: cannot tell the format from the name; use .jsonl, .json or .csv (optionally .gz) or --format", out)
		}
	}
	return nil
}

// feedOptions are the options of the feed --out and --format name.
func feedOptions(format string, stdout io.Writer) []feed.Option {
	opts := []feed.Option{feed.WithStdout(stdout)}
	if format != "" {
		fm, _ := feed.ParseFormat(format) // checkFeed parsed it
		opts = append(opts, feed.WithFormat(fm))
	}
	return opts
}

// openFeed opens the feed --out names ("-" is standard output): appended
// to with --append or --state (but a new job's with --overwrite), else
// created (checkFeedMode refused an existing feed without --overwrite). It returns nil for no --out.
func (f *crawlFlags) openFeed(stdout io.Writer) (*guardedFeed, error) {
	if f.out == "" {
		return nil, nil
	}
	if f.continues(f.state) {
		feed, err := feed.Resume(f.out, feedOptions(f.format, stdout)...)
		if err != nil {
			return nil, usageError("--out: %v", err)
		}
		return &guardedFeed{Feed: feed}, nil
	}
	feed, err := feed.Open(f.out, feedOptions(f.format, stdout)...)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return &guardedFeed{Feed: feed}, nil
}

// resumable refuses the feeds a crawl with --state cannot append to, before
// anything is opened.
func (f *crawlFlags) resumable() error {
	if f.out == "" || f.out == "-" {
		return nil
	}
	fm, gz, _ := feed.FormatFor(f.out)
	if f.format != "" {
		fm, _ = feed.ParseFormat(f.format)
	}
	if gz || fm == feed.JSONFormat {
		_, err := feed.Resume(f.out, feed.WithFormat(fm), feed.WithGzip(gz))
		return usageError("--out with --state: %v", err)
	}
	return nil
}

// logStats logs a "stats" record every interval until stopped: the
// periodic log a long job run without a terminal keeps, through the
// command's report logger (its format, at info level).
func logStats(log *slog.Logger, collector *stats.Collector, every time.Duration) (stop func()) {
	return everyInterval(every, func() { log.Info("stats", statsArgs(collector.Snapshot())...) }, nil)
}

// statsArgs are a snapshot's counts as a log record's attributes.
func statsArgs(s stats.Snapshot) []any {
	return []any{"pages", s.Pages, "bytes", s.Bytes, "rate", round1(s.Rate()), "errors", crawlErrors(s),
		"waiting", s.Waiting, "in_flight", s.InFlight, "duplicates", s.Duplicates, "skipped", s.SkippedTotal(),
		"items", s.Items, "items_dropped", s.ItemsDropped, "elapsed", s.Elapsed.Round(time.Second).String()}
}

// summaryWriter is where the summary goes: standard output, unless the
// feed is written there.
func summaryWriter(out string, stdout, stderr io.Writer) io.Writer {
	if out == "-" {
		return stderr
	}
	return stdout
}

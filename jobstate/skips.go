package jobstate

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"

	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// fileSkips is DirState's skip log: a JSON Lines file written with an
// fsync per record, and in memory the fingerprint of every URL it holds,
// so that no URL gets a second record, in this run or a later one.
type fileSkips struct {
	path string
	f    *os.File
	w    *skiplog.Writer

	mu   sync.Mutex
	seen map[frontier.Fingerprint]uint8 // URL to its reason's index
	sum  skiplog.Summary
	// reasons interns the reasons outside skiplog.Reasons (none today),
	// so that the map stays one byte per value.
	reasons []skiplog.Reason
}

// openFileSkips opens (creating) the skip log at path, drops a last line
// cut by a crash (its request was not done, so it is written again), and
// reads the rest.
func openFileSkips(path string) (*fileSkips, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("jobstate: skip log: %w", err)
	}
	s := &fileSkips{path: path, f: f, seen: make(map[frontier.Fingerprint]uint8), reasons: append([]skiplog.Reason(nil), skiplog.Reasons...)}
	if err := s.load(); err != nil {
		f.Close()
		return nil, err
	}
	s.w = skiplog.NewWriter(f, skiplog.WithSync())
	return s, nil
}

func (s *fileSkips) load() error {
	if _, err := feed.RepairTail(s.f, false); err != nil {
		return fmt.Errorf("jobstate: skip log %s: %w", s.path, err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("jobstate: skip log %s: %w", s.path, err)
	}
	err := skiplog.Read(s.f, func(rec *skiplog.Record) error {
		s.note(rec)
		return nil
	})
	if err != nil {
		return fmt.Errorf("jobstate: skip log %s is damaged: %w", s.path, err)
	}
	return nil
}

// note remembers a record's URL and counts it; s.mu is held (or s is not
// shared yet).
func (s *fileSkips) note(rec *skiplog.Record) {
	i := -1
	for j, r := range s.reasons {
		if r == rec.Reason {
			i = j
			break
		}
	}
	if i < 0 && len(s.reasons) < 255 {
		s.reasons = append(s.reasons, rec.Reason)
		i = len(s.reasons) - 1
	}
	if i < 0 {
		i = 255
	}
	s.seen[frontier.NewFingerprint("", rec.Key())] = uint8(i)
	s.sum.Add(rec)
}

// Write appends rec with an fsync, unless its URL has a record.
func (s *fileSkips) Write(rec *skiplog.Record) (bool, error) {
	if rec == nil {
		return false, errors.New("jobstate: nil skip record")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[frontier.NewFingerprint("", skiplog.KeyOf(rec.URL))]; dup {
		return false, nil
	}
	if err := s.w.Write(rec); err != nil {
		return false, err
	}
	s.note(rec)
	return true, nil
}

// Recorded returns the reason of url's record.
func (s *fileSkips) Recorded(url string) (skiplog.Reason, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.seen[frontier.NewFingerprint("", skiplog.KeyOf(url))]
	if !ok {
		return "", false
	}
	if int(i) < len(s.reasons) {
		return s.reasons[i], true
	}
	return "other", true
}

// Summary counts every record in the file.
func (s *fileSkips) Summary() skiplog.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneSummary(s.sum)
}

// Close syncs and closes the file.
func (s *fileSkips) Close() error {
	return errors.Join(s.w.Close(), s.f.Close())
}

func cloneSummary(s skiplog.Summary) skiplog.Summary {
	c := skiplog.Summary{Total: s.Total, Failed: s.Failed, ByReason: maps.Clone(s.ByReason), ByAuthority: make(map[string]map[skiplog.Reason]int, len(s.ByAuthority))}
	for a, m := range s.ByAuthority {
		c.ByAuthority[a] = maps.Clone(m)
	}
	return c
}

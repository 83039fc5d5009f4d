package jobstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/stats"
)

// DirState is a State kept in one directory on local disk:
//
//	DIR/lock            held (flock) by the crawl using the state; holds its pid
//	DIR/frontier/       the durable frontier (package frontier/durable), whose
//	                    meta space holds the job's records, as JSON:
//	  job               the Job: runs, running, complete, seeds
//	  stats             the statistics (a stats.Snapshot), saved every second
//	  robots/AUTHORITY  the last robots.txt fetch (a middleware.RobotsRecord)
//	  pace/AUTHORITY    the pacing (a politeness.AuthorityState), every second
//	  budget/SEQ        a page admitted by the budget: its authority
//	  check             the number of the last checkpoint
//	DIR/skipped.jsonl   the skip log, one fsync per record
//	DIR/integrity.json  what the last checkpoint recorded, checked by Open
//	                    (see DamageError)
//	DIR/status.json     the running crawl's status snapshot (Live), replaced
//	                    at every checkpoint, for heed status while it runs
//
// Robots records and budget admissions are written (and fsync'd) as they
// happen; the job record, statistics and pacing every second and when the
// crawl stops. A kill -9 can therefore lose up to a second of statistics
// and pacing (the crawler makes up for the pacing, see State), never a
// queued URL, a robots.txt record, a budget admission or a skip record.
type DirState struct {
	dir   string
	lock  *os.File
	skips *fileSkips

	mu     sync.Mutex
	front  *durable.Frontier
	closed bool

	ckMu sync.Mutex // serialises checkpoints
	ckpt uint64     // the number of the last checkpoint (see integrity.go)
}

// Names inside a state directory.
const (
	stateLockName     = "lock"
	stateFrontierName = "frontier"
	stateSkipLogName  = "skipped.jsonl"

	metaJob    = "job"
	metaStats  = "stats"
	metaRobots = "robots/"
	metaPace   = "pace/"
	metaBudget = "budget/"
)

// BusyError says that another process is using a state directory.
type BusyError struct {
	Dir string
	// PID is the process holding it, when it wrote its pid; 0 otherwise.
	PID int
}

// Error names the directory and the process holding it.
func (e *BusyError) Error() string {
	who := "another heed process"
	if e.PID > 0 {
		who += " (pid " + strconv.Itoa(e.PID) + ")"
	}
	return fmt.Sprintf("jobstate: the state %s is in use by %s; wait for it to stop, or use another directory", e.Dir, who)
}

// Open opens the state in dir, creating the directory if needed,
// and locks it for this process. It fails with a *BusyError while
// another process has it, and with a *DamageError, changing nothing, for
// a state that fails its integrity checks. The frontier is opened by OpenFrontier.
func Open(dir string) (*DirState, error) {
	if dir == "" {
		return nil, errors.New("jobstate: empty state directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("jobstate: state: %w", err)
	}
	lock, err := lockState(dir, true)
	if err != nil {
		return nil, err
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	ckpt, err := checkState(dir)
	if err != nil {
		lock.Truncate(0)
		lock.Close()
		return nil, err
	}
	skips, err := openFileSkips(filepath.Join(dir, stateSkipLogName))
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &DirState{dir: dir, lock: lock, skips: skips, ckpt: ckpt}, nil
}

// lockState opens and locks dir/lock: exclusively for a crawl, shared for
// a reader. The lock file is created only by a crawl.
func lockState(dir string, exclusive bool) (*os.File, error) {
	flag := os.O_RDONLY
	if exclusive {
		flag = os.O_RDWR | os.O_CREATE
	}
	f, err := os.OpenFile(filepath.Join(dir, stateLockName), flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("jobstate: state: %w", err)
	}
	held, err := lockFile(f, exclusive)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("jobstate: state: lock %s: %w", f.Name(), err)
	}
	if held {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
		f.Close()
		return nil, &BusyError{Dir: dir, PID: pid}
	}
	return f, nil
}

// Dir returns the state's directory.
func (s *DirState) Dir() string { return s.dir }

// OpenFrontier opens the durable frontier in DIR/frontier.
func (s *DirState) OpenFrontier(opts ...frontier.Option) (frontier.Frontier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.front != nil {
		return nil, errors.New("jobstate: state: frontier already open")
	}
	f, err := durable.Open(filepath.Join(s.dir, stateFrontierName), opts...)
	if err != nil {
		var oe *durable.OrderError
		if errors.As(err, &oe) {
			return nil, fmt.Errorf("jobstate: the state %s was made by a crawl with another queue order (depth-first or not); use the same order to resume it: %w", s.dir, err)
		}
		return nil, fmt.Errorf("jobstate: state: %w", err)
	}
	s.front = f
	return f, nil
}

func (s *DirState) frontier() (*durable.Frontier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.front == nil {
		return nil, errors.New("jobstate: state: the frontier is not open")
	}
	return s.front, nil
}

// getJSON reads one meta key into v; found is false for a missing key.
func (s *DirState) getJSON(key string, v any) (found bool, err error) {
	f, err := s.frontier()
	if err != nil {
		return false, err
	}
	b, err := f.GetMeta(key)
	if errors.Is(err, durable.ErrMetaNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("jobstate: state %s: %s: %w", s.dir, key, err)
	}
	return true, nil
}

func (s *DirState) putJSON(key string, v any) error {
	f, err := s.frontier()
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return f.PutMeta(key, b)
}

// Job returns the job record.
func (s *DirState) Job() (Job, error) {
	var j Job
	_, err := s.getJSON(metaJob, &j)
	return j, err
}

// ForEachRobots calls fn with every robots.txt record.
func (s *DirState) ForEachRobots(fn func(*middleware.RobotsRecord) error) error {
	f, err := s.frontier()
	if err != nil {
		return err
	}
	return f.ForEachMeta(metaRobots, func(key string, v []byte) error {
		var rec middleware.RobotsRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("jobstate: state %s: %s: %w", s.dir, key, err)
		}
		return fn(&rec)
	})
}

// SaveRobots stores a robots.txt record, fsync'd.
func (s *DirState) SaveRobots(rec *middleware.RobotsRecord) error {
	return s.putJSON(metaRobots+rec.Authority, rec)
}

// Pacing returns the stored pacing.
func (s *DirState) Pacing() (map[string]politeness.AuthorityState, error) {
	f, err := s.frontier()
	if err != nil {
		return nil, err
	}
	out := map[string]politeness.AuthorityState{}
	err = f.ForEachMeta(metaPace, func(key string, v []byte) error {
		var st politeness.AuthorityState
		if err := json.Unmarshal(v, &st); err != nil {
			return fmt.Errorf("jobstate: state %s: %s: %w", s.dir, key, err)
		}
		out[strings.TrimPrefix(key, metaPace)] = st
		return nil
	})
	return out, err
}

// Budget returns the stored budget admissions.
func (s *DirState) Budget() (map[uint64]string, error) {
	f, err := s.frontier()
	if err != nil {
		return nil, err
	}
	out := map[uint64]string{}
	err = f.ForEachMeta(metaBudget, func(key string, v []byte) error {
		seq, err := strconv.ParseUint(strings.TrimPrefix(key, metaBudget), 16, 64)
		if err != nil {
			return fmt.Errorf("jobstate: state %s: bad budget key %q", s.dir, key)
		}
		out[seq] = string(v)
		return nil
	})
	return out, err
}

// SaveBudget stores one budget admission, fsync'd.
func (s *DirState) SaveBudget(seq uint64, authority string) error {
	f, err := s.frontier()
	if err != nil {
		return err
	}
	return f.PutMeta(fmt.Sprintf("%s%016x", metaBudget, seq), []byte(authority))
}

// Stats returns the stored statistics, or nil.
func (s *DirState) Stats() (*stats.Snapshot, error) {
	var snap stats.Snapshot
	found, err := s.getJSON(metaStats, &snap)
	if !found || err != nil {
		return nil, err
	}
	return &snap, nil
}

// Checkpoint stores the job record, the statistics and the pacing in one
// write, then the integrity record that the next Open checks the state
// against (see integrity.go).
func (s *DirState) Checkpoint(cp *Checkpoint) error {
	f, err := s.frontier()
	if err != nil {
		return err
	}
	s.ckMu.Lock()
	defer s.ckMu.Unlock()
	// The skip log's mark is taken first: every record it counts is on
	// disk, and records written after it only make the file longer.
	size, records, sum := s.skips.mark()
	var b durable.MetaBatch
	b.Put(metaCheck, []byte(strconv.FormatUint(s.ckpt+1, 10)))
	job, err := json.Marshal(cp.Job)
	if err != nil {
		return err
	}
	b.Put(metaJob, job)
	if cp.Stats != nil {
		st, err := json.Marshal(cp.Stats)
		if err != nil {
			return err
		}
		b.Put(metaStats, st)
	}
	for auth, ps := range cp.Pacing {
		v, err := json.Marshal(ps)
		if err != nil {
			return err
		}
		b.Put(metaPace+auth, v)
	}
	if err := f.WriteMeta(&b); err != nil {
		return err
	}
	s.ckpt++
	return writeIntegrity(s.dir, &integrity{Checkpoint: s.ckpt, SkipBytes: size, SkipRecords: records, SkipSHA256: sum})
}

// Skips returns the skip log, DIR/skipped.jsonl.
func (s *DirState) Skips() SkipStore { return s.skips }

// Close closes the frontier if it is open, the skip log, and unlocks the
// directory. Closing again does nothing.
func (s *DirState) Close() error {
	s.mu.Lock()
	front, closed := s.front, s.closed
	s.closed = true
	s.mu.Unlock()
	if closed {
		return nil
	}
	var errs []error
	if front != nil {
		errs = append(errs, front.Close()) // harmless if the crawl closed it
	}
	// The pid goes before the lock, so that a reader that finds the lock
	// taken does not name a process that is gone.
	s.lock.Truncate(0)
	errs = append(errs, s.skips.Close(), s.lock.Close())
	return errors.Join(errs...)
}

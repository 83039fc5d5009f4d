package jobstate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/heedcrawl/heed/frontier/durable"
)

// A state checks itself when it is opened, against what it recorded at its
// last checkpoint (every second, and when a run stops), in DIR/integrity.json
// (written to a temporary file, synced and renamed):
//
//   - the number of that checkpoint, which the same checkpoint also writes
//     to the frontier's meta space (metaCheck). A frontier that is missing,
//     that its store refuses to open, or that holds an older checkpoint
//     than recorded has lost writes (its log cut or damaged: Pebble
//     replays its log up to the first damaged record and drops the rest);
//   - the skip log's length, record count and SHA-256 of those bytes. A
//     skip log that is missing, shorter, or whose first recorded bytes
//     differ has lost or altered records. A longer one is what a crash
//     leaves (records written after the last checkpoint) and is accepted.
//
// A crash between the frontier's checkpoint and the file's leaves the
// frontier one checkpoint ahead, which is accepted; at the first
// checkpoint that means a frontier holding checkpoint 1 and no
// integrity.json yet. A state written before
// heed recorded these checks has no integrity.json and no metaCheck, and is
// opened as before; a state whose frontier holds a metaCheck but that has
// no integrity.json is refused.
const (
	stateCheckName = "integrity.json"
	metaCheck      = "check"
)

// integrity is what DIR/integrity.json holds.
type integrity struct {
	Checkpoint  uint64 `json:"checkpoint"`
	SkipBytes   int64  `json:"skip_log_bytes"`
	SkipRecords int    `json:"skip_log_records"`
	SkipSHA256  string `json:"skip_log_sha256"`
}

// DamageError says that a state was found damaged when it was opened:
// what of it is missing, cut or altered. The state is left as it was.
type DamageError struct {
	Dir string
	// Damage names what is wrong, in a sentence.
	Damage string
}

// Error names the state and its damage.
func (e *DamageError) Error() string {
	return fmt.Sprintf("jobstate: the state %s is damaged: %s; it was left as it is (restore it from a copy, or run the job again in a new directory)", e.Dir, e.Damage)
}

// checkState verifies dir against its integrity record before anything in
// it is opened for writing, and returns the frontier's checkpoint number.
func checkState(dir string) (uint64, error) {
	damaged := func(format string, a ...any) error {
		return &DamageError{Dir: dir, Damage: fmt.Sprintf(format, a...)}
	}
	var rec integrity
	recorded := true
	b, err := os.ReadFile(filepath.Join(dir, stateCheckName))
	switch {
	case errors.Is(err, os.ErrNotExist):
		recorded = false
	case err != nil:
		return 0, fmt.Errorf("jobstate: state: %w", err)
	default:
		if err := json.Unmarshal(b, &rec); err != nil {
			return 0, damaged("its integrity record %s cannot be read: %v", stateCheckName, err)
		}
	}

	// The frontier.
	front := filepath.Join(dir, stateFrontierName)
	var ckpt uint64
	if _, err := os.Stat(front); errors.Is(err, os.ErrNotExist) {
		if recorded {
			return 0, damaged("the frontier (%s) is missing; the state recorded checkpoint %d of it", stateFrontierName, rec.Checkpoint)
		}
	} else if err != nil {
		return 0, fmt.Errorf("jobstate: state: %w", err)
	} else {
		found, n, err := frontierCheckpoint(front)
		if err != nil {
			if !recorded {
				// Not a state, or one from before these checks: Open
				// says what it finds.
				return 0, nil
			}
			return 0, damaged("the frontier (%s) is damaged: %v", stateFrontierName, err)
		}
		switch {
		case found && !recorded && n > 1:
			// Checkpoint 1 without its record is a crash during the
			// first checkpoint; a later one has lost its record.
			return 0, damaged("its integrity record (%s) is missing, though its frontier recorded checkpoint %d", stateCheckName, n)
		case recorded && (!found || n < rec.Checkpoint):
			return 0, damaged("the frontier (%s) is damaged: it holds checkpoint %d, the state recorded %d; its log lost the writes in between (cut or overwritten)", stateFrontierName, n, rec.Checkpoint)
		}
		ckpt = n
	}
	if !recorded {
		return ckpt, nil
	}

	// The skip log.
	path := filepath.Join(dir, stateSkipLogName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if rec.SkipBytes > 0 {
			return 0, damaged("the skip log (%s) is missing; it held %d records (%d bytes)", stateSkipLogName, rec.SkipRecords, rec.SkipBytes)
		}
		return ckpt, nil
	}
	if err != nil {
		return 0, fmt.Errorf("jobstate: state: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("jobstate: state: %w", err)
	}
	if fi.Size() < rec.SkipBytes {
		return 0, damaged("the skip log (%s) is shorter than recorded: %d bytes, where the state recorded %d records in %d bytes; records were lost", stateSkipLogName, fi.Size(), rec.SkipRecords, rec.SkipBytes)
	}
	h := sha256.New()
	if _, err := io.CopyN(h, f, rec.SkipBytes); err != nil {
		return 0, fmt.Errorf("jobstate: state: skip log: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != rec.SkipSHA256 {
		return 0, damaged("the skip log (%s) was altered: its first %d bytes (%d records) do not have the recorded SHA-256", stateSkipLogName, rec.SkipBytes, rec.SkipRecords)
	}
	return ckpt, nil
}

// frontierCheckpoint reads the checkpoint number a frontier holds, with
// the store opened read-only (nothing in it is changed).
func frontierCheckpoint(path string) (found bool, n uint64, err error) {
	rd, err := durable.OpenReader(path)
	if err != nil {
		return false, 0, err
	}
	defer rd.Close()
	b, err := rd.GetMeta(metaCheck)
	if errors.Is(err, durable.ErrMetaNotFound) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	n, err = strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return false, 0, fmt.Errorf("bad checkpoint record %q", b)
	}
	return true, n, nil
}

// writeIntegrity replaces DIR/integrity.json with rec, durably.
func writeIntegrity(dir string, rec *integrity) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, stateCheckName)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("jobstate: integrity record: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		if d, derr := os.Open(dir); derr == nil {
			err = d.Sync()
			d.Close()
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("jobstate: integrity record: %w", err)
	}
	return nil
}

// hashedFile is the skip log's file as its Writer sees it: every byte
// written is counted and hashed, for the integrity record.
type hashedFile struct {
	f *os.File
	h hash.Hash
	n int64
}

func (w *hashedFile) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.h.Write(p[:n])
	w.n += int64(n)
	return n, err
}

func (w *hashedFile) Sync() error { return w.f.Sync() }

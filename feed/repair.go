package feed

import (
	"bytes"
	"io"
	"os"
)

// RepairTail truncates f after its last whole record, so that a record a
// killed process was writing does not spoil the next run's: records end
// with a newline, and in CSV (quoted) a newline inside quotes does not end
// one. It returns the number of bytes dropped. Resume repairs a feed
// with it, and a job's state its skip log.
func RepairTail(f *os.File, quoted bool) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	var end int64
	if quoted {
		end, err = csvRecordsEnd(f, size)
	} else {
		end, err = LinesEnd(f, size)
	}
	if err != nil || end == size {
		return 0, err
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	return size - end, nil
}

// LinesEnd returns the offset just past the last newline of f, reading
// backwards from its end.
func LinesEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for hi := size; hi > 0; {
		lo := max(0, hi-int64(len(buf)))
		b := buf[:hi-lo]
		if _, err := f.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return 0, nil
}

// csvRecordsEnd returns the offset just past the last newline of f that
// is outside quotes. A CSV writer doubles every quote inside a quoted
// field, so the count of quotes before a byte is odd exactly when the byte
// is inside a quoted field.
func csvRecordsEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	var end, off int64
	inQuotes := false
	for off < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		for i, c := range buf[:n] {
			switch {
			case c == '"':
				inQuotes = !inQuotes
			case c == '\n' && !inQuotes:
				end = off + int64(i) + 1
			}
		}
		off += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return end, nil
}

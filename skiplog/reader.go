package skiplog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// maxLine bounds one skip-log line when reading; records are far smaller.
const maxLine = 1 << 20

// Read calls fn for every record of a JSON Lines skip log, in order. A line
// that is not a complete record (for example the last line of a log whose
// writer was killed mid-write by something other than heed) is reported as
// an error naming its line number; fn's error stops the read and is
// returned.
func Read(r io.Reader, fn func(*Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("skiplog: line %d: %w", line, err)
		}
		if rec.URL == "" || rec.Reason == "" {
			return fmt.Errorf("skiplog: line %d: record without url or reason", line)
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("skiplog: line %d: %w", line+1, err)
	}
	return nil
}

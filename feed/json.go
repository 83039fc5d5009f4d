package feed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// JSONLines is a pipeline.Exporter writing one JSON value per line (JSON Lines,
// also called NDJSON). Each item is encoded first and written with a
// single Write call, so whatever stops the crawl, even a killed process,
// leaves only complete lines behind.
type JSONLines struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewJSONLines returns a JSON Lines exporter writing to w. Items are
// encoded with encoding/json (struct tags apply), HTML characters left
// unescaped.
func NewJSONLines(w io.Writer) *JSONLines {
	j := &JSONLines{w: w}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

// Export writes one item as a line.
func (j *JSONLines) Export(item any) error {
	j.buf.Reset()
	if err := j.enc.Encode(item); err != nil {
		return fmt.Errorf("jsonlines: %w", err)
	}
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

// Close syncs the underlying file when it is a regular file; it does not
// close it (whoever opened it does).
func (j *JSONLines) Close() error { return syncFile(j.w) }

// JSONArray is a pipeline.Exporter writing one JSON array of items, one item per
// line. The opening bracket goes out with the first item, the closing
// bracket on Close (an empty crawl writes "[]"), so a crawl that is
// stopped, by its context or by SIGINT through the command line, leaves a
// valid document. Each item is written with a single Write call.
type JSONArray struct {
	w      io.Writer
	buf    bytes.Buffer
	enc    *json.Encoder
	n      int
	closed bool
}

// NewJSONArray returns a JSON array exporter writing to w.
func NewJSONArray(w io.Writer) *JSONArray {
	j := &JSONArray{w: w}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

// Export writes one item as the array's next element.
func (j *JSONArray) Export(item any) error {
	if j.closed {
		return fmt.Errorf("json: export after Close")
	}
	j.buf.Reset()
	if j.n == 0 {
		j.buf.WriteString("[\n")
	} else {
		j.buf.WriteString(",\n")
	}
	mark := j.buf.Len()
	if err := j.enc.Encode(item); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	// Encode ends the value with a newline; the separator or the closing
	// bracket supplies it instead.
	if j.buf.Len() > mark {
		j.buf.Truncate(j.buf.Len() - 1)
	}
	if _, err := j.w.Write(j.buf.Bytes()); err != nil {
		return err
	}
	j.n++
	return nil
}

// Close writes the closing bracket (or "[]" when no item was exported)
// and syncs a regular file; it does not close the writer. Calling it
// again does nothing.
func (j *JSONArray) Close() error {
	if j.closed {
		return nil
	}
	j.closed = true
	end := "\n]\n"
	if j.n == 0 {
		end = "[]\n"
	}
	if _, err := io.WriteString(j.w, end); err != nil {
		return err
	}
	return syncFile(j.w)
}

// syncFile flushes a regular file to storage. Terminals, pipes and other
// writers are left alone: fsync means nothing to them, and some refuse it.
func syncFile(w io.Writer) error {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return f.Sync()
}

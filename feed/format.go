package feed

import (
	"fmt"
	"github.com/heedcrawl/heed/pipeline"
	"io"
	"path/filepath"
	"strings"
)

// Format names a feed format, as Scrapy's feed exports do.
type Format string

// The feed formats heed writes.
const (
	// JSONLinesFormat is one JSON value per line (.jsonl, .ndjson, .jl).
	JSONLinesFormat Format = "jsonl"
	// JSONFormat is one JSON array (.json).
	JSONFormat Format = "json"
	// CSVFormat is comma-separated values under a header line (.csv).
	CSVFormat Format = "csv"
)

// Formats lists the formats ParseFormat accepts, in the order help texts
// show them.
var Formats = []Format{JSONLinesFormat, JSONFormat, CSVFormat}

// ParseFormat returns the format a name stands for: "jsonl" (also
// "jsonlines", "ndjson", "jl"), "json" or "csv", in any case.
func ParseFormat(name string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "jsonl", "jsonlines", "ndjson", "jl":
		return JSONLinesFormat, nil
	case "json":
		return JSONFormat, nil
	case "csv":
		return CSVFormat, nil
	}
	return "", fmt.Errorf("unknown feed format %q (want jsonl, json or csv)", name)
}

// FormatFor returns the format a file name implies by its extension, a
// trailing ".gz" set aside, and whether the name is gzipped. ok is false
// when the extension names no format.
func FormatFor(path string) (f Format, gzipped, ok bool) {
	name := strings.ToLower(filepath.Base(path))
	if strings.HasSuffix(name, ".gz") {
		gzipped = true
		name = strings.TrimSuffix(name, ".gz")
	}
	ext := strings.TrimPrefix(filepath.Ext(name), ".")
	if ext == "" {
		return "", gzipped, false
	}
	f, err := ParseFormat(ext)
	return f, gzipped, err == nil
}

// NewExporter returns heed's exporter for format f writing to w.
func NewExporter(f Format, w io.Writer) (pipeline.Exporter, error) {
	switch f {
	case JSONLinesFormat:
		return NewJSONLines(w), nil
	case JSONFormat:
		return NewJSONArray(w), nil
	case CSVFormat:
		return NewCSV(w), nil
	}
	return nil, fmt.Errorf("unknown feed format %q (want jsonl, json or csv)", f)
}

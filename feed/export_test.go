package feed_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
)

type inner struct {
	A int    `json:"a"`
	B string `json:"b"`
}

type Base struct {
	ID int `json:"id"`
}

type record struct {
	Base
	Name    string            `json:"name"`
	Price   float64           `json:"price"`
	Count   int64             `json:"count"`
	OK      bool              `json:"ok"`
	When    time.Time         `json:"when"`
	Tags    []string          `json:"tags"`
	Nested  inner             `json:"nested"`
	Ptr     *inner            `json:"ptr"`
	Attrs   map[string]string `json:"attrs"`
	Secret  string            `json:"-"`
	Renamed string            `csv:"label" json:"renamed"`
}

func records() []record {
	when := time.Date(2026, 3, 1, 12, 30, 0, 123000000, time.UTC)
	tenth := 0.1 // not a constant, so that 0.1+0.2 is computed in float64
	return []record{
		{Base: Base{1}, Name: "plain", Price: 10.5, Count: 3, OK: true, When: when, Tags: []string{"a", "b"},
			Nested: inner{1, "x"}, Ptr: &inner{2, "y"}, Attrs: map[string]string{"k": "v"}, Renamed: "r1"},
		{Base: Base{2}, Name: "comma, \"quote\"\nand newline", Price: tenth + 0.2, Count: -7, When: when.Add(time.Hour),
			Tags: nil, Nested: inner{}, Ptr: nil, Attrs: nil, Secret: "never", Renamed: "r2"},
		{Base: Base{3}, Name: "ünïcödé <b>&", Price: 1e-9, Count: math.MaxInt64, When: when, Tags: []string{}, Renamed: ""},
	}
}

// TestJSONExportersRoundTrip: what JSONLines and JSONArray write decodes
// back to the items that were exported.
func TestJSONExportersRoundTrip(t *testing.T) {
	want := records()
	want[1].Secret = "" // json:"-" is not written
	for _, tt := range []struct {
		name   string
		new    func(io.Writer) crawler.Exporter
		decode func([]byte) ([]record, error)
	}{
		{"jsonl", func(w io.Writer) crawler.Exporter { return feed.NewJSONLines(w) }, decodeLines[record]},
		{"json", func(w io.Writer) crawler.Exporter { return feed.NewJSONArray(w) }, decodeArray[record]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := tt.new(&buf)
			for _, r := range records() {
				if err := e.Export(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := tt.decode(buf.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestJSONArrayEmptyAndAfterClose(t *testing.T) {
	var buf bytes.Buffer
	a := feed.NewJSONArray(&buf)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "[]\n" {
		t.Errorf("empty array written as %q", buf.String())
	}
	if err := a.Export(1); err == nil {
		t.Error("export after Close accepted")
	}
	if err := a.Close(); err != nil || buf.String() != "[]\n" {
		t.Errorf("second Close: %v, %q", err, buf.String())
	}
}

func TestJSONExportError(t *testing.T) {
	for _, e := range []crawler.Exporter{feed.NewJSONLines(io.Discard), feed.NewJSONArray(io.Discard), feed.NewCSV(io.Discard)} {
		if err := e.Export(map[string]any{"f": func() {}}); err == nil {
			t.Errorf("%T exported a func", e)
		}
	}
}

// TestCSVRoundTrip: the header comes from the struct's fields and tags,
// and each cell parses back to the field's value.
func TestCSVRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := feed.NewCSV(&buf)
	for _, r := range records() {
		if err := c.Export(r); err != nil {
			t.Fatal(err)
		}
		if err := c.Export(&r); err != nil { // a pointer to the same struct writes the same row
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := []string{"id", "name", "price", "count", "ok", "when", "tags", "nested", "ptr", "attrs", "label"}
	if !reflect.DeepEqual(rows[0], header) {
		t.Fatalf("header %q, want %q", rows[0], header)
	}
	if len(rows) != 1+2*len(records()) {
		t.Fatalf("%d rows", len(rows))
	}
	for i, want := range records() {
		for _, row := range rows[1+2*i : 3+2*i] {
			got := parseRecordRow(t, header, row)
			want.Secret = ""
			if want.Tags != nil && len(want.Tags) == 0 {
				want.Tags = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("row %d:\n got %+v\nwant %+v\n cells %q", i, got, want, row)
			}
		}
	}
	// Exact cells where the encoding is a promise, not just a round trip.
	for col, want := range map[string]string{"price": "0.30000000000000004", "ok": "false", "tags": "null", "ptr": "", "attrs": "null",
		"when": "2026-03-01T13:30:00.123Z", "nested": `{"a":0,"b":""}`} {
		if got := rows[3][indexOf(header, col)]; got != want {
			t.Errorf("cell %s = %q, want %q", col, got, want)
		}
	}
	if got := rows[5][indexOf(header, "price")]; got != "1e-09" {
		t.Errorf("small float written as %q", got)
	}
}

// parseRecordRow decodes one CSV row back into a record: scalars from
// their text, nested values from their JSON.
func parseRecordRow(t *testing.T, header, row []string) record {
	t.Helper()
	obj := map[string]json.RawMessage{}
	for i, col := range header {
		cell := row[i]
		switch col {
		case "name", "label":
			b, _ := json.Marshal(cell)
			obj[map[string]string{"name": "name", "label": "renamed"}[col]] = b
		case "when":
			b, _ := json.Marshal(cell)
			obj[col] = b
		case "ptr":
			if cell == "" {
				cell = "null"
			}
			obj[col] = json.RawMessage(cell)
		default:
			obj[col] = json.RawMessage(cell)
		}
	}
	b, _ := json.Marshal(obj)
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("row %q does not parse back: %v", row, err)
	}
	return r
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func TestCSVMapsAndColumns(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  []feed.CSVOption
		items []any
		want  string
	}{
		{"map keys sorted; later extra keys dropped, missing keys empty", nil,
			[]any{map[string]any{"b": 2, "a": "x", "c": []int{1}}, map[string]any{"a": "y", "z": 9}},
			"a,b,c\nx,2,[1]\ny,,\n"},
		{"map[string]string", nil, []any{map[string]string{"url": "u", "title": "t,1"}}, "title,url\n\"t,1\",u\n"},
		{"fixed columns pick struct fields by name", []feed.CSVOption{feed.CSVColumns("b", "missing", "a")},
			[]any{inner{1, "one"}, map[string]int{"a": 5}}, "b,missing,a\none,,1\n,,5\n"},
		{"scalars go in a value column", nil, []any{"s", 3}, "value\ns\n3\n"},
		{"header alone when no row came", []feed.CSVOption{feed.CSVColumns("x", "y")}, nil, "x,y\n"},
		{"nothing at all without columns or rows", nil, nil, ""},
		{"semicolons", []feed.CSVOption{feed.CSVComma(';')}, []any{inner{1, "a;b"}}, "a;b\n1;\"a;b\"\n"},
		{"nil pointer item", nil, []any{(*inner)(nil)}, "value\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := feed.NewCSV(&buf, tt.opts...)
			for _, it := range tt.items {
				if err := c.Export(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
}

func TestFormatFor(t *testing.T) {
	for _, tt := range []struct {
		path string
		f    feed.Format
		gz   bool
		ok   bool
	}{
		{"items.jsonl", feed.JSONLinesFormat, false, true},
		{"dir.v2/items.NDJSON.gz", feed.JSONLinesFormat, true, true},
		{"items.jl", feed.JSONLinesFormat, false, true},
		{"items.json", feed.JSONFormat, false, true},
		{"items.csv.gz", feed.CSVFormat, true, true},
		{"items.txt", "", false, false},
		{"items", "", false, false},
		{"items.gz", "", true, false},
		{"-", "", false, false},
	} {
		f, gz, ok := feed.FormatFor(tt.path)
		if f != tt.f || gz != tt.gz || ok != tt.ok {
			t.Errorf("FormatFor(%q) = %q, %v, %v; want %q, %v, %v", tt.path, f, gz, ok, tt.f, tt.gz, tt.ok)
		}
	}
	if _, err := feed.ParseFormat("xml"); err == nil {
		t.Error("xml accepted")
	}
}

// TestFeedFiles: Open picks format and compression from the name or
// the options, and what it writes reads back.
func TestFeedFiles(t *testing.T) {
	dir := t.TempDir()
	items := []inner{{1, "a"}, {2, "b,c"}}
	for _, tt := range []struct {
		name string
		opts []feed.Option
		gz   bool
		want func([]byte) ([]inner, error)
	}{
		{"a.jsonl", nil, false, decodeLines[inner]},
		{"a.json.gz", nil, true, decodeArray[inner]},
		{"a.csv", nil, false, decodeInnerCSV},
		{"a.csv.gz", []feed.Option{feed.WithGzip(false)}, false, decodeInnerCSV},
		{"a.out", []feed.Option{feed.WithFormat("json"), feed.WithGzip(true)}, true, decodeArray[inner]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			f, err := feed.Open(path, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if err := f.Export(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			got, err := tt.want(readFeed(t, path, tt.gz))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, items) {
				t.Errorf("got %+v", got)
			}
		})
	}
	for _, bad := range []struct {
		path string
		opts []feed.Option
	}{
		{filepath.Join(dir, "a.txt"), nil},
		{"-", nil},
		{filepath.Join(dir, "a.jsonl"), []feed.Option{feed.WithFormat("xml")}},
		{filepath.Join(dir, "no-such-dir", "a.jsonl"), nil},
	} {
		if _, err := feed.Open(bad.path, bad.opts...); err == nil {
			t.Errorf("Open(%q) accepted", bad.path)
		}
	}
	var stdout bytes.Buffer
	f, err := feed.Open("-", feed.WithFormat(feed.CSVFormat), feed.WithStdout(&stdout))
	if err != nil {
		t.Fatal(err)
	}
	f.Export(items[0])
	f.Close()
	if stdout.String() != "a,b\n1,a\n" || f.Path() != "-" || f.Format() != feed.CSVFormat {
		t.Errorf("stdout feed wrote %q", stdout.String())
	}
}

func readFeed(t *testing.T, path string, gz bool) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !gz {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeLines[T any](b []byte) ([]T, error) {
	var out []T
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" && len(b) == 0 {
			break
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func decodeArray[T any](b []byte) ([]T, error) {
	var out []T
	err := json.Unmarshal(b, &out)
	return out, err
}

func decodeInnerCSV(b []byte) ([]inner, error) {
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []inner
	for _, r := range rows[1:] {
		var v inner
		if err := json.Unmarshal([]byte(r[0]), &v.A); err != nil {
			return nil, err
		}
		v.B = r[1]
		out = append(out, v)
	}
	return out, nil
}

package feed

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type feedRow struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

func TestResumeFeed(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		before  string // what a killed run left
		items   []feedRow
		want    string
		refused bool
	}{
		{"jsonl appends", "f.jsonl", "{\"url\":\"a\",\"title\":\"A\"}\n", []feedRow{{"b", "B"}},
			"{\"url\":\"a\",\"title\":\"A\"}\n{\"url\":\"b\",\"title\":\"B\"}\n", false},
		{"jsonl drops a cut line", "f.jsonl", "{\"url\":\"a\",\"title\":\"A\"}\n{\"url\":\"b\",\"ti", []feedRow{{"b", "B"}},
			"{\"url\":\"a\",\"title\":\"A\"}\n{\"url\":\"b\",\"title\":\"B\"}\n", false},
		{"jsonl new file", "f.jsonl", "", []feedRow{{"a", "A"}}, "{\"url\":\"a\",\"title\":\"A\"}\n", false},
		{"csv keeps its header", "f.csv", "url,title\na,A\n", []feedRow{{"b", "B"}}, "url,title\na,A\nb,B\n", false},
		{"csv header in another order", "f.csv", "title,url\nA,a\n", []feedRow{{"b", "B"}}, "title,url\nA,a\nB,b\n", false},
		{"csv drops a cut row", "f.csv", "url,title\na,A\nb,\"two\nlines", []feedRow{{"b", "two\nlines"}},
			"url,title\na,A\nb,\"two\nlines\"\n", false},
		{"csv cut in the header", "f.csv", "url,ti", []feedRow{{"a", "A"}}, "url,title\na,A\n", false},
		{"json array refused", "f.json", "[\n{}\n]\n", nil, "", true},
		{"gzip refused", "f.jsonl.gz", "", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if tt.before != "" {
				os.WriteFile(path, []byte(tt.before), 0o644)
			}
			feed, err := Resume(path)
			if tt.refused {
				if !errors.Is(err, ErrNotResumable) {
					t.Fatalf("err %v, want ErrNotResumable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range tt.items {
				if err := feed.Export(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := feed.Close(); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Errorf("feed:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// FuzzRepairCSVTail writes rows with encoding/csv, cuts the file where a
// kill could, and checks that the repair keeps exactly the rows written
// whole.
func FuzzRepairCSVTail(f *testing.F) {
	f.Add("a,b\nc\"d,e\n\nf", uint16(7))
	f.Add("x\ny\nz", uint16(3))
	f.Add("multi\nline,\"q\"", uint16(9))
	f.Fuzz(func(t *testing.T, fields string, cut uint16) {
		// Rows are separated by '|' in the input, fields by ';'.
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		var ends []int
		for _, row := range strings.Split(fields, "|") {
			if err := w.Write(strings.Split(row, ";")); err != nil {
				return
			}
			w.Flush()
			ends = append(ends, buf.Len())
		}
		data := buf.Bytes()
		n := int(cut) % (len(data) + 1)
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		if _, err := RepairTail(file, true); err != nil {
			t.Fatal(err)
		}
		fi, _ := file.Stat()
		want := 0
		for _, e := range ends {
			if e <= n {
				want = e
			}
		}
		if int(fi.Size()) != want {
			t.Fatalf("cut at %d of %q: kept %d bytes, want %d", n, data, fi.Size(), want)
		}
	})
}

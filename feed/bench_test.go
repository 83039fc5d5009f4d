package feed_test

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/pages"
)

// benchItems are items like a scraper's: strings, numbers, a time, a list.
func benchItems() []pages.Page {
	items := make([]pages.Page, 256)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range items {
		items[i] = pages.Page{
			URL:       fmt.Sprintf("https://shop.example/catalogue/item-%d?ref=list", i),
			Status:    200,
			Title:     fmt.Sprintf("Item %d, \"quoted\" — the best <item> in the shop", i),
			Depth:     i % 7,
			Referrer:  fmt.Sprintf("https://shop.example/catalogue?page=%d", i/20),
			Bytes:     10000 + i*37,
			Links:     40 + i%13,
			FetchedAt: t0.Add(time.Duration(i) * time.Second),
		}
	}
	return items
}

// BenchmarkExport measures items per second written by heed's exporters,
// beside encoding/json encoding the same items straight to the same
// writer, the peer the exporters are compared with:
//
//	go test -run '^$' -bench BenchmarkExport -benchtime 2s -count 5 ./crawler/
func BenchmarkExport(b *testing.B) {
	items := benchItems()
	for _, bc := range []struct {
		name string
		new  func(io.Writer) crawler.Exporter
	}{
		{"encoding-json", func(w io.Writer) crawler.Exporter { return directJSON{json.NewEncoder(w)} }},
		{"jsonl", func(w io.Writer) crawler.Exporter { return feed.NewJSONLines(w) }},
		{"json-array", func(w io.Writer) crawler.Exporter { return feed.NewJSONArray(w) }},
		{"csv", func(w io.Writer) crawler.Exporter { return feed.NewCSV(w) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := bc.new(io.Discard)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.Export(items[i%len(items)]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			e.Close()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// BenchmarkExportInterleaved runs the peer and the exporters in turns of
// one batch each, so that a noisy machine slows them alike, and reports
// each exporter's time per item as a ratio to encoding/json's (below 1.2
// is the goal):
//
//	go test -run '^$' -bench BenchmarkExportInterleaved -benchtime 3s -count 5 ./crawler/
func BenchmarkExportInterleaved(b *testing.B) {
	items := benchItems()
	names := []string{"encoding-json", "jsonl", "json-array", "csv"}
	exps := []crawler.Exporter{directJSON{json.NewEncoder(io.Discard)}, feed.NewJSONLines(io.Discard), feed.NewJSONArray(io.Discard), feed.NewCSV(io.Discard)}
	spent := make([]time.Duration, len(exps))
	n := 0
	b.ResetTimer()
	for n < b.N {
		for k, e := range exps {
			start := time.Now()
			for _, it := range items {
				if err := e.Export(it); err != nil {
					b.Fatal(err)
				}
			}
			spent[k] += time.Since(start)
		}
		n += len(items)
	}
	b.StopTimer()
	for k, name := range names {
		b.ReportMetric(float64(n)/spent[k].Seconds(), name+"-items/s")
		if k > 0 {
			b.ReportMetric(float64(spent[k])/float64(spent[0]), name+"/json")
		}
	}
}

// directJSON is the peer: encoding/json's Encoder writing each item.
type directJSON struct{ enc *json.Encoder }

func (d directJSON) Export(item any) error { return d.enc.Encode(item) }
func (d directJSON) Close() error          { return nil }

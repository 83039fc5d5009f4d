package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkParse measures throughput and memory for sitemaps of 5,000 and
// 50,000 URLs, plain and gzipped, and, as the peer, encoding/xml's
// Unmarshal of the whole document (what a non-streaming reader does).
//
// Metrics: urls/s; B/url, bytes allocated per URL (flat when the cost per
// URL does not depend on the document's size); live-KiB, the most heap
// still in use after a GC at any point of one parse, above what was in use
// before it (flat when the parser holds nothing that grows).
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{5_000, 50_000} {
		plain := urlset(n)
		compressed := gz(b, plain)
		for _, c := range []struct {
			name string
			data []byte
			run  func(data []byte) int
		}{
			{"plain", plain, parseCount},
			{"gzip", compressed, parseCount},
			{"peer=xml.Unmarshal", plain, unmarshalCount},
		} {
			b.Run(fmt.Sprintf("%s/urls=%d", c.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(plain)))
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				total := 0
				for b.Loop() {
					if got := c.run(c.data); got != n {
						b.Fatalf("parsed %d URLs, want %d", got, n)
					}
					total += n
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "urls/s")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(total), "B/url")
				b.ReportMetric(float64(liveHeap(c.name, c.data, n))/1024, "live-KiB")
			})
		}
	}
}

func parseCount(data []byte) int {
	n := 0
	rep, _ := Parse(context.Background(), bytes.NewReader(data), func(e Entry) error {
		n++
		return nil
	})
	if rep.Err != nil {
		panic(rep.Err)
	}
	return n
}

type unmarshalled struct {
	URLs []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

func unmarshalCount(data []byte) int {
	var u unmarshalled
	if err := xml.Unmarshal(data, &u); err != nil {
		panic(err)
	}
	return len(u.URLs)
}

// liveHeap parses data once more, outside the timer, and returns the
// largest growth of the live heap (HeapAlloc right after a GC) seen every
// n/10 URLs, or at the end for the peer, which holds everything until it
// returns.
func liveHeap(name string, data []byte, n int) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	sample := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	if name == "peer=xml.Unmarshal" {
		var u unmarshalled
		xml.Unmarshal(data, &u)
		sample()
		runtime.KeepAlive(u)
		return peak - base
	}
	seen := 0
	Parse(context.Background(), bytes.NewReader(data), func(e Entry) error {
		seen++
		if seen%(n/10) == 0 {
			sample()
		}
		return nil
	})
	return peak - base
}

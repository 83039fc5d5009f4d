package frontier

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// benchRound is the most requests a push-all-then-take-all benchmark round
// builds at once, so that a large b.N does not need gigabytes.
const benchRound = 1_000_000

// benchRequests builds n requests on the given number of authorities, with
// URLs unique across rounds.
func benchRequests(round, n, authorities int) []*Request {
	reqs := make([]*Request, n)
	for i := range reqs {
		id := round*benchRound + i
		reqs[i] = &Request{
			URL:   "https://host" + strconv.Itoa(id%authorities) + ".example/page/" + strconv.Itoa(id),
			Depth: id % 4,
		}
	}
	return reqs
}

// BenchmarkPushNextDone measures one URL's whole life in the frontier:
// Push, Next and Done, with up to a million URLs queued at once over the
// given number of authorities. An op is one URL. Requests are built outside
// the timer, so allocs/op are the frontier's own.
func BenchmarkPushNextDone(b *testing.B) {
	for _, auths := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("authorities=%d", auths), func(b *testing.B) {
			ctx := context.Background()
			m := NewMemory(WithLeasesPerAuthority(1))
			defer m.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for round, left := 0, b.N; left > 0; round++ {
				n := min(left, benchRound)
				left -= n
				b.StopTimer()
				reqs := benchRequests(round, n, auths)
				runtime.GC()
				b.StartTimer()
				for _, r := range reqs {
					if res, err := m.Push(ctx, r); res != Added || err != nil {
						b.Fatalf("Push: %v %v", res, err)
					}
				}
				for range n {
					r, err := m.Next(ctx)
					if err != nil {
						b.Fatalf("Next: %v", err)
					}
					if err := m.Done(ctx, r); err != nil {
						b.Fatalf("Done: %v", err)
					}
				}
			}
		})
	}
}

// BenchmarkSteadyState keeps about 100,000 URLs queued over 1,000
// authorities and, per op, pushes one URL and hands out and finishes one:
// the frontier's cost in the middle of a long crawl.
func BenchmarkSteadyState(b *testing.B) {
	const queued, auths = 100_000, 1_000
	ctx := context.Background()
	m := NewMemory()
	defer m.Close()
	for _, r := range benchRequests(0, queued, auths) {
		m.Push(ctx, r)
	}
	reqs := benchRequests(1, min(b.N, benchRound), auths)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r := reqs[i%len(reqs)]
		if i >= len(reqs) { // past the prepared URLs: a fresh one
			b.StopTimer()
			r = &Request{URL: "https://host" + strconv.Itoa(i%auths) + ".example/more/" + strconv.Itoa(i)}
			b.StartTimer()
		}
		if res, err := m.Push(ctx, r); res != Added || err != nil {
			b.Fatalf("Push: %v %v", res, err)
		}
		got, err := m.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		m.Done(ctx, got)
	}
}

// BenchmarkQueuedMemory reports what a queued URL costs with a million
// URLs queued over 1,000 authorities: the heap bytes per queued URL (after
// GC, every byte the frontier keeps: queue entries, URL text, the seen
// set), the same for the million in MiB, the peak resident set of the
// process while they were pushed, over its resident set before (MiB; the
// requests are built one by one as a crawl's links are, so the figure is
// the frontier's and its garbage's), and what a URL costs once it is done
// and only its fingerprint remains.
func BenchmarkQueuedMemory(b *testing.B) {
	const n, auths = 1_000_000, 1_000
	ctx := context.Background()
	var queuedBytes, seenBytes, peakRSS float64
	for range b.N {
		b.StopTimer()
		var before, full, after runtime.MemStats
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&before)
		rssBefore, resetOK := resetPeakRSS()
		b.StartTimer()
		m := NewMemory()
		for i := range n {
			m.Push(ctx, &Request{
				URL:   "https://host" + strconv.Itoa(i%auths) + ".example/page/" + strconv.Itoa(i),
				Depth: i % 4,
			})
		}
		b.StopTimer()
		if peak, ok := readStatusKiB("VmHWM:"); ok && resetOK {
			peakRSS += float64(peak-rssBefore) / 1024
		}
		runtime.GC()
		runtime.ReadMemStats(&full)
		for range n {
			r, _ := m.Next(ctx)
			m.Done(ctx, r)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if st := m.Stats(); st.Seen != n || st.Queued != 0 {
			b.Fatalf("Stats %+v", st)
		}
		runtime.KeepAlive(m)
		queuedBytes += float64(full.HeapAlloc-before.HeapAlloc) / n
		seenBytes += float64(after.HeapAlloc-before.HeapAlloc) / n
		b.StartTimer()
	}
	b.ReportMetric(queuedBytes/float64(b.N), "B/queued-url")
	b.ReportMetric(queuedBytes/float64(b.N)*n/(1<<20), "heap-MiB/1M-queued")
	if peakRSS > 0 {
		b.ReportMetric(peakRSS/float64(b.N), "peak-RSS-MiB/1M-queued")
	}
	b.ReportMetric(seenBytes/float64(b.N), "B/seen-url")
}

// resetPeakRSS resets the process's peak resident set (VmHWM) to its
// current resident set (Linux: "5" to /proc/self/clear_refs) and returns
// that, in KiB; false where the kernel does not allow it.
func resetPeakRSS() (int64, bool) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, false
	}
	return readStatusKiB("VmRSS:")
}

// readStatusKiB reads one "Name: N kB" line of /proc/self/status.
func readStatusKiB(field string) (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

var benchURLs = []struct{ name, url string }{
	{"canonical", "https://www.example.com/products/widgets/blue-widget.html?id=42&ref=home"},
	{"messy", "HTTPS://User@WWW.Example.COM:443/products/./widgets/../widgets/blue%2dwidget.html?id=42&ref=home#reviews"},
	{"unicode", "http://bücher.example/straße/über uns?q=grüße"},
}

// BenchmarkCanonicalize measures Canonicalize, with net/url's Parse and
// String on the same input as the peer to compare against.
func BenchmarkCanonicalize(b *testing.B) {
	for _, tt := range benchURLs {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Canonicalize(tt.url); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tt.name+"/peer=net-url", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				u, err := url.Parse(tt.url)
				if err != nil {
					b.Fatal(err)
				}
				_ = u.String()
			}
		})
	}
}

// BenchmarkAuthority measures Authority, which the robots stage, the
// pacer, the cookie jar and the skip log ask of every request.
func BenchmarkAuthority(b *testing.B) {
	for _, tt := range benchURLs {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Authority(tt.url); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFingerprint(b *testing.B) {
	u := benchURLs[0].url
	b.ReportAllocs()
	b.SetBytes(int64(len(u)))
	for range b.N {
		NewFingerprint("GET", u)
	}
}

package durable_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
)

// Benchmarks compare the durable frontier with frontier.Memory on the same
// workload in the same run, and report the ratio. The workload size is
// HEED_DURABLE_BENCH_URLS (default 20,000 URLs on 1,000 authorities); the
// figures in the package doc are for 1,000,000:
//
//	HEED_DURABLE_BENCH_URLS=1000000 go test -run='^$' -bench=. -benchtime=1x ./frontier/durable

const benchAuthorities = 1000

func benchURLs(b testing.TB) int {
	if s := os.Getenv("HEED_DURABLE_BENCH_URLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("HEED_DURABLE_BENCH_URLS=%q: want a positive number", s)
		}
		return n
	}
	return 20_000
}

// benchRequests returns requests lo to hi-1 of the workload.
func benchRequests(lo, hi int) []*frontier.Request {
	reqs := make([]*frontier.Request, 0, hi-lo)
	for i := lo; i < hi; i++ {
		reqs = append(reqs, &frontier.Request{
			URL:   "https://host" + strconv.Itoa(i%benchAuthorities) + ".example/page/" + strconv.Itoa(i),
			Depth: i % 4,
		})
	}
	return reqs
}

// pushAll pushes reqs: one at a time from workers goroutines, or, with
// batch > 0, in PushBatch calls of batch requests (a page's links).
func pushAll(b testing.TB, f frontier.Frontier, reqs []*frontier.Request, workers, batch int) {
	ctx := context.Background()
	if d, ok := f.(*durable.Frontier); ok && batch > 0 {
		for i := 0; i < len(reqs); i += batch {
			res, errs := d.PushBatch(ctx, reqs[i:min(i+batch, len(reqs))])
			for j := range res {
				if res[j] != frontier.Added {
					b.Fatalf("PushBatch: %v %v", res[j], errs[j])
				}
			}
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(reqs); i += workers {
				if res, err := f.Push(ctx, reqs[i]); res != frontier.Added || err != nil {
					b.Errorf("Push: %v %v", res, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func takeAll(b testing.TB, f frontier.Frontier, n int) {
	ctx := context.Background()
	for range n {
		r, err := f.Next(ctx)
		if err != nil {
			b.Fatalf("Next: %v", err)
		}
		if err := f.Done(ctx, r); err != nil {
			b.Fatalf("Done: %v", err)
		}
	}
}

// BenchmarkPushNextDone pushes every URL (queued all at once), then hands
// out and finishes every one, on the durable frontier and on Memory. An op
// is the whole workload. Modes: batch=50 pushes with PushBatch, as the
// crawler pushes a page's links; workers=8 pushes one URL per Push from 8
// goroutines, whose fsyncs Pebble groups (on at most 100,000 URLs);
// workers=1 waits for one fsync per URL (on at most 2,000 URLs: it is slow
// by design).
func BenchmarkPushNextDone(b *testing.B) {
	n := benchURLs(b)
	for _, mode := range []struct {
		name           string
		workers, batch int
		max            int
	}{
		{"batch=50", 1, 50, 0},
		{"workers=8", 8, 0, 100_000},
		{"workers=1", 1, 0, 2000},
	} {
		b.Run(mode.name, func(b *testing.B) {
			urls := n
			if mode.max > 0 {
				urls = min(n, mode.max)
			}
			var memPush, memTake, durPush, durTake time.Duration
			var bytes int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				reqs := benchRequests(0, urls)
				m := frontier.NewMemory()
				b.StartTimer()
				t0 := time.Now()
				pushAll(b, m, reqs, mode.workers, mode.batch)
				t1 := time.Now()
				takeAll(b, m, urls)
				t2 := time.Now()
				memPush += t1.Sub(t0)
				memTake += t2.Sub(t1)
				m.Close()

				b.StopTimer()
				reqs = benchRequests(0, urls)
				dir := filepath.Join(b.TempDir(), "state")
				d, err := durable.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 = time.Now()
				pushAll(b, d, reqs, mode.workers, mode.batch)
				t1 = time.Now()
				bytes = d.DiskBytes()
				takeAll(b, d, urls)
				t2 = time.Now()
				durPush += t1.Sub(t0)
				durTake += t2.Sub(t1)
				b.StopTimer()
				d.Close()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			total := float64(urls) * float64(b.N)
			rate := func(d time.Duration) float64 { return total / d.Seconds() }
			b.ReportMetric(float64(urls), "urls")
			b.ReportMetric(rate(durPush), "durable-push-urls/s")
			b.ReportMetric(rate(durTake), "durable-next+done-urls/s")
			b.ReportMetric(rate(memPush), "memory-push-urls/s")
			b.ReportMetric(rate(memTake), "memory-next+done-urls/s")
			b.ReportMetric(rate(durPush+durTake)/rate(memPush+memTake), "durable/memory")
			b.ReportMetric(float64(bytes)/float64(urls), "disk-B/url")
		})
	}
}

// rssEnv makes the test binary a child that queues HEED_DURABLE_BENCH_URLS
// URLs in the frontier it names ("durable" or "memory"), hands out and
// finishes 1,000 of them, and prints its peak resident set size.
const rssEnv = "HEED_DURABLE_RSS_CHILD"

func TestRSSChild(t *testing.T) {
	kind := os.Getenv(rssEnv)
	if kind == "" {
		t.Skip("run by BenchmarkPeakRSS in a child process")
	}
	n := benchURLs(t)
	var f frontier.Frontier
	if kind == "durable" {
		d, err := durable.Open(filepath.Join(t.TempDir(), "state"))
		if err != nil {
			t.Fatal(err)
		}
		f = d
	} else {
		f = frontier.NewMemory()
	}
	defer f.Close()
	// Build the requests in slices of 10,000 so that the child holds no
	// more than the frontier does.
	for i := 0; i < n; i += 10_000 {
		reqs := benchRequests(i, min(n, i+10_000))
		pushAll(t, f, reqs, 1, 100)
	}
	if st := f.Stats(); st.Queued != n {
		t.Fatalf("queued %d; want %d", st.Queued, n)
	}
	takeAll(t, f, min(n, 1000))
	fmt.Printf("VmHWM %d\n", vmHWM(t))
}

// vmHWM returns the process's peak resident set size in bytes, file-backed
// pages (an mmap'd store) included.
func vmHWM(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	t.Fatalf("no VmHWM line in /proc/self/status")
	return 0
}

// BenchmarkPeakRSS measures the peak RSS of a process holding
// HEED_DURABLE_BENCH_URLS queued URLs, durable and in memory, each in a
// child process of its own.
func BenchmarkPeakRSS(b *testing.B) {
	n := benchURLs(b)
	peak := map[string]float64{}
	for i := 0; i < b.N; i++ {
		for _, kind := range []string{"durable", "memory"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRSSChild$", "-test.v")
			cmd.Env = append(os.Environ(), rssEnv+"="+kind, "HEED_DURABLE_BENCH_URLS="+strconv.Itoa(n))
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%s child: %v\n%s", kind, err, out)
			}
			var hwm int64
			for _, l := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM "); ok {
					hwm, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			if hwm == 0 {
				b.Fatalf("%s child printed no VmHWM:\n%s", kind, out)
			}
			peak[kind] = max(peak[kind], float64(hwm)/(1<<20))
		}
	}
	b.ReportMetric(float64(n), "urls")
	b.ReportMetric(peak["durable"], "durable-peak-MiB")
	b.ReportMetric(peak["memory"], "memory-peak-MiB")
	b.ReportMetric(peak["durable"]/peak["memory"], "durable/memory")
}

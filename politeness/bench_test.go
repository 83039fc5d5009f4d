package politeness

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

const benchAuthorities = 10_000

// benchClock is a lock-free manual clock for benchmarks.
type benchClock struct{ ns atomic.Int64 }

func (c *benchClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }
func (c *benchClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.Now().Add(d)
	return ch
}
func (c *benchClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func benchNames() []string {
	names := make([]string, benchAuthorities)
	for i := range names {
		names[i] = "https://host-" + strconv.Itoa(i) + ".example:8443"
	}
	return names
}

// step is how far the clock moves per operation so that each of the
// authorities, visited in turn, is ready again exactly when revisited.
const step = DefaultFloor / benchAuthorities

// BenchmarkTryAcquireRelease is heed's hot path: a start booked and
// released, round-robin over 10,000 authorities that are each ready again
// when their turn comes.
func BenchmarkTryAcquireRelease(b *testing.B) {
	ctx := context.Background()
	clk := &benchClock{ns: atomic.Int64{}}
	clk.advance(time.Duration(time.Now().UnixNano()))
	p, _ := New(WithClock(clk))
	names := benchNames()
	for _, a := range names { // warm: every authority has state
		p.TryAcquire(ctx, a)
		p.Release(ctx, a, Feedback{Status: 200})
		clk.advance(step)
	}
	b.ReportAllocs()
	b.ResetTimer()
	refused := 0
	for i := 0; i < b.N; i++ {
		a := names[i%benchAuthorities]
		if ok, _, _ := p.TryAcquire(ctx, a); ok {
			p.Release(ctx, a, Feedback{Status: 200})
		} else {
			refused++
		}
		clk.advance(step)
	}
	b.StopTimer()
	if refused > 0 {
		b.Fatalf("%d of %d starts refused; the benchmark measures the wrong path", refused, b.N)
	}
}

// BenchmarkPeerMapLimiter is the peer of BenchmarkTryAcquireRelease: the
// least a per-host limiter can do, a locked map of rate.Limiters and AllowN,
// on the same clock and schedule.
func BenchmarkPeerMapLimiter(b *testing.B) {
	clk := &benchClock{}
	clk.advance(time.Duration(time.Now().UnixNano()))
	var mu sync.Mutex
	lims := make(map[string]*rate.Limiter, benchAuthorities)
	names := benchNames()
	for _, a := range names {
		lims[a] = rate.NewLimiter(rate.Every(DefaultFloor), 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	allowed := 0
	for i := 0; i < b.N; i++ {
		a := names[i%benchAuthorities]
		mu.Lock()
		lim := lims[a]
		mu.Unlock()
		if lim.AllowN(clk.Now(), 1) {
			allowed++
		}
		clk.advance(step)
	}
	b.StopTimer()
	if allowed < b.N*9/10 {
		b.Fatalf("only %d of %d allowed", allowed, b.N)
	}
}

// BenchmarkTryAcquireRefused is the path of a request that arrives too
// early and goes back to the frontier.
func BenchmarkTryAcquireRefused(b *testing.B) {
	ctx := context.Background()
	p, _ := New()
	names := benchNames()
	for _, a := range names {
		p.TryAcquire(ctx, a)
		p.Release(ctx, a, Feedback{Status: 200})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, _, _ := p.TryAcquire(ctx, names[i%benchAuthorities]); ok && i < benchAuthorities {
			b.Fatal("start allowed within the interval")
		}
	}
}

// BenchmarkReadyAt is the frontier's question, asked of 10,000 authorities
// that have pacing state, on the system clock.
func BenchmarkReadyAt(b *testing.B) {
	ctx := context.Background()
	p, _ := New()
	names := benchNames()
	for _, a := range names {
		p.TryAcquire(ctx, a)
		p.Release(ctx, a, Feedback{Status: 200})
	}
	b.ReportAllocs()
	b.ResetTimer()
	var zero int
	for i := 0; i < b.N; i++ {
		if p.ReadyAt(names[i%benchAuthorities]).IsZero() {
			zero++
		}
	}
	b.StopTimer()
	if zero > 0 && b.N <= benchAuthorities {
		b.Fatalf("%d authorities reported ready at once", zero)
	}
}

// BenchmarkReadyAtInFlight is the frontier's question about authorities
// that each have a request in flight, so that ReadyAt answers an interval
// from now; TryAcquire gives the same answer on the same path.
func BenchmarkReadyAtInFlight(b *testing.B) {
	p, _ := New(WithConcurrency(8))
	names := benchNames()
	for _, a := range names {
		p.TryAcquire(context.Background(), a)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var zero int
	for i := 0; i < b.N; i++ {
		if p.ReadyAt(names[i%benchAuthorities]).IsZero() {
			zero++
		}
	}
	b.StopTimer()
	if zero > 0 {
		b.Fatalf("%d authorities with a request in flight reported ready at once", zero)
	}
}

// BenchmarkReadyAtParallel and BenchmarkTryAcquireReleaseParallel measure
// the same under contention from GOMAXPROCS goroutines.
func BenchmarkReadyAtParallel(b *testing.B) {
	ctx := context.Background()
	p, _ := New()
	names := benchNames()
	for _, a := range names {
		p.TryAcquire(ctx, a)
		p.Release(ctx, a, Feedback{Status: 200})
	}
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seq.Add(7919))
		for pb.Next() {
			i++
			p.ReadyAt(names[i%benchAuthorities])
		}
	})
}

func BenchmarkTryAcquireReleaseParallel(b *testing.B) {
	ctx := context.Background()
	clk := &benchClock{}
	clk.advance(time.Duration(time.Now().UnixNano()))
	p, _ := New(WithClock(clk))
	names := benchNames()
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seq.Add(7919))
		for pb.Next() {
			i++
			a := names[i%benchAuthorities]
			if ok, _, _ := p.TryAcquire(ctx, a); ok {
				p.Release(ctx, a, Feedback{Status: 200})
			}
			clk.advance(step)
		}
	})
}

// BenchmarkMemoryPerAuthority reports the heap a Pacer keeps per authority
// (the authority strings themselves excluded): 10,000 authorities, each with
// a Crawl-delay and a start and release behind it.
func BenchmarkMemoryPerAuthority(b *testing.B) {
	ctx := context.Background()
	names := benchNames()
	var perAuthority float64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, _ := New()
		for _, a := range names {
			p.SetCrawlDelay(ctx, a, 2*time.Second)
			p.TryAcquire(ctx, a)
			p.Release(ctx, a, Feedback{Status: 200})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perAuthority = float64(after.HeapAlloc-before.HeapAlloc) / benchAuthorities
		runtime.KeepAlive(p)
	}
	b.ReportMetric(perAuthority, "B/authority")
}

package ui

import (
	"context"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// BenchmarkLiveViewOverhead measures what watching a crawl costs it: the
// throughput crawl of bench/ (the default generated site, 50 hosts × 400
// pages of 8 KiB, no floor, 8 in flight per host, 32 in all) run plain
// and with the live view open in headless Chromium (a Monitor, the start
// log, the page's event stream and its redraws), interleaved, each b.N
// times. It reports both medians in pages/s and their ratio; the goal is
// live/plain ≥ 0.95.
//
//	go test -run='^$' -bench=LiveViewOverhead -benchtime=3x ./ui/
func BenchmarkLiveViewOverhead(b *testing.B) {
	path := browserPath()
	if path == "" {
		b.Skip("no chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		b.Fatal(err)
	}
	var plain, live, plainCPU, liveCPU []float64
	b.ResetTimer()
	for range b.N {
		pps, cpu := throughputCrawl(b, nil)
		plain, plainCPU = append(plain, pps), append(plainCPU, cpu)
		pps, cpu = throughputCrawl(b, bctx)
		live, liveCPU = append(live, pps), append(liveCPU, cpu)
	}
	b.StopTimer()
	mp, ml := median(plain), median(live)
	b.ReportMetric(mp, "plain-pages/s")
	b.ReportMetric(ml, "live-pages/s")
	b.ReportMetric(ml/mp, "live/plain")
	// On a shared machine wall time wanders; the CPU this process spends
	// per page (crawl, site and, in the live runs, the Monitor and the
	// page's server) does less.
	b.ReportMetric(median(liveCPU)/median(plainCPU), "cpu-live/plain")
	b.Logf("pages/s plain %.0f, live %.0f; CPU µs/page plain %.0f, live %.0f", plain, live, plainCPU, liveCPU)
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// throughputCrawl crawls a fresh throughput site and returns pages/s and
// the process's CPU microseconds per page; with a browser context it
// watches the crawl in it.
func throughputCrawl(b *testing.B, browser context.Context) (float64, float64) {
	site, err := testweb.StartGenerated(testweb.DefaultGenerated())
	if err != nil {
		b.Fatal(err)
	}
	defer site.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second}
	defer tr.CloseIdleConnections()
	opts := []crawler.Option{
		crawler.WithTransport(tr),
		crawler.WithAllowedDomains(site.Domains()...),
		crawler.WithDelay(0),
		crawler.WithWorkers(32),
		crawler.WithConcurrencyPerHost(8),
	}
	if browser != nil {
		opts = append(opts, crawler.WithStartLog(StartLogSize))
	}
	c, err := crawler.New("HeedBot", opts...)
	if err != nil {
		b.Fatal(err)
	}
	c.FollowLinks()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if browser != nil {
		m := NewMonitor(c)
		s, err := New(WithMonitor(m))
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: s}
		ln := listenLoopback(b)
		go srv.Serve(ln)
		defer srv.Close()
		// The page opens as the crawl starts and stays open to its end.
		c.OnStart(func(*crawler.Crawler) {
			go chromedp.Do(browser, chromedp.Navigate("http://"+ln.Addr().String()+"/live"))
		})
	}
	start, cpu0 := time.Now(), cpuTime()
	sum, err := c.Run(ctx, site.Seeds()...)
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if err != nil || sum.Interrupted {
		b.Fatalf("crawl: %v (interrupted %v)", err, sum.Interrupted)
	}
	if browser != nil {
		chromedp.Do(browser, chromedp.Navigate("about:blank"))
	}
	pages := float64(sum.Stats.Pages)
	return pages / elapsed.Seconds(), float64(cpu.Microseconds()) / pages
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

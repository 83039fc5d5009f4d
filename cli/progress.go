package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/heedcrawl/heed/inventory"
	"github.com/heedcrawl/heed/stats"
)

// startLine prints the line line() returns on w every half second, in
// place: on a terminal in "auto" mode, always in "always" mode, never in
// "never" mode. It returns the function that stops it and clears the line.
func startLine(mode string, w io.Writer, line func() string) (stop func()) {
	show := mode == "always"
	if f, ok := w.(*os.File); ok && mode == "auto" && term.IsTerminal(int(f.Fd())) {
		show = true
	}
	if !show {
		return func() {}
	}
	return everyInterval(500*time.Millisecond,
		func() { fmt.Fprint(w, "\r\033[K"+line()) },
		func() { fmt.Fprint(w, "\r\033[K") })
}

// everyInterval calls tick every interval in its own goroutine until the
// returned function is called; then it calls last (when not nil) and
// returns. Stopping more than once is harmless.
func everyInterval(interval time.Duration, tick, last func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				if last != nil {
					last()
				}
				return
			case <-t.C:
				tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// startProgress shows a crawl's progress: pages and rate, the queue,
// duplicates, skips and items.
func startProgress(mode string, w io.Writer, stats *stats.Collector) (stop func()) {
	return startLine(mode, w, func() string {
		s := stats.Snapshot()
		return fmt.Sprintf("pages %d (%.1f/s)  waiting %d  in flight %d  duplicates %d  skipped %d  items %d  %s",
			s.Pages, s.Rate(), s.Waiting, s.InFlight, s.Duplicates, s.SkippedTotal(), s.Items, s.Elapsed.Round(time.Second))
	})
}

// startInventoryProgress shows an inventory's progress: sitemaps read,
// URLs listed, URLs robots.txt disallows.
func startInventoryProgress(mode string, w io.Writer, inv *inventory.Inventory) (stop func()) {
	return startLine(mode, w, func() string {
		p := inv.Progress()
		return fmt.Sprintf("sitemaps %d  URLs %d  disallowed %d  %s", p.Sitemaps, p.URLs, p.Disallowed, p.Elapsed.Round(time.Second))
	})
}

package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/heedcrawl/heed/crawler"
)

// startProgress prints a live progress line on w every half second while
// a crawl runs: on a terminal in "auto" mode, always in "always" mode. It
// returns the function that stops it and clears the line.
func startProgress(mode string, w io.Writer, stats *crawler.Stats) (stop func()) {
	show := mode == "always"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			show = true
		}
	}
	if !show {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-t.C:
				s := stats.Snapshot()
				fmt.Fprintf(w, "\r\033[Kpages %d (%.1f/s)  waiting %d  in flight %d  duplicates %d  skipped %d  items %d  %s",
					s.Pages, s.Rate(), s.Waiting, s.InFlight, s.Duplicates, s.SkippedTotal(), s.Items, s.Elapsed.Round(time.Second))
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

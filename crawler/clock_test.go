package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
)

// A crawl whose clock (WithClock) is set apart from the system's fetches
// every page all the same: deferrals (robots.txt pending, a retry) are
// waited on the system clock, whatever clock stamps the skip log and
// robots.txt freshness.
func TestAClockSetApartDoesNotStrandTheCrawl(t *testing.T) {
	for _, off := range []time.Duration{0, time.Hour, -time.Hour, 48 * time.Hour} {
		t.Run(off.String(), func(t *testing.T) {
			var failedOnce atomic.Bool
			mux := http.NewServeMux()
			mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			})
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, `<html><a href="/a">a</a><a href="/flaky">b</a></html>`)
			})
			mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>a</html>") })
			mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
				if failedOnce.CompareAndSwap(false, true) {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				fmt.Fprint(w, "<html>b</html>")
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()

			c, err := crawler.New("TestBot", crawler.WithDelay(0), crawler.WithRetries(2, 10*time.Millisecond),
				crawler.WithClock(func() time.Time { return time.Now().Add(off) }))
			if err != nil {
				t.Fatal(err)
			}
			c.FollowLinks()
			// A bound on a stalled crawl, not a timing: the crawl takes
			// well under a second when nothing strands it.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sum, err := c.Run(ctx, srv.URL+"/")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Stats.Pages != 3 || sum.Skipped.Total != 0 {
				t.Errorf("clock %v from the system's: %d pages fetched, %d skipped (%v); want 3 and none",
					off, sum.Stats.Pages, sum.Skipped.Total, sum.Skipped.ByReason)
			}
		})
	}
}

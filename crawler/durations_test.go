package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/stats"
)

// TestRequestDurations: every request heed sends is counted in the
// duration histogram of its status class, robots.txt and each retry
// included, and a request that got no answer is an "error".
func TestRequestDurations(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/gone">g</a> <a href="/broken">b</a> <a href="/cut">c</a> <a href="/moved">m</a>`)
	})
	mux.HandleFunc("/gone", http.NotFound)
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusMovedPermanently) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	// One retry each for /broken and /cut: two requests of each.
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithRetries(1, time.Millisecond), crawler.WithConcurrencyPerHost(4))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err := c.Run(ctx, site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"2xx": 2, "3xx": 1, "4xx": 1, "5xx": 2, "error": 2} // 2xx: robots.txt and /
	got := map[string]int64{}
	for class, h := range sum.Stats.Durations {
		got[class] = h.Count
		var inBuckets int64
		for _, n := range h.Buckets {
			inBuckets += n
		}
		if inBuckets > h.Count || h.Sum < 0 || len(h.Buckets) != len(stats.DurationBuckets) {
			t.Errorf("%s: count %d, %d in buckets, sum %v, %d buckets", class, h.Count, inBuckets, h.Sum, len(h.Buckets))
		}
		cum := h.Cumulative()
		if last := cum[stats.DurationBuckets[len(stats.DurationBuckets)-1]]; last != uint64(inBuckets) {
			t.Errorf("%s: cumulative %d, want %d", class, last, inBuckets)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests by class %v, want %v", got, want)
	}
}

package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// heldScrape runs a crawl with --metrics and args, and scrapes addr+path
// while the crawl is held inside a request.
func heldScrape(t *testing.T, path string, args ...string) string {
	t.Helper()
	hold, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/held">held</a>`)
	})
	mux.HandleFunc("/held", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(hold) })
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--skiplog", "",
			"--metrics", "127.0.0.1:0", site.URL + "/"}, args...), &stdout, &stderr)
	}()
	defer func() {
		if code := <-done; code != 0 {
			t.Errorf("exit %d\n%s", code, stderr.String())
		}
	}()
	defer close(release)
	select {
	case <-hold:
	case <-time.After(30 * time.Second):
		t.Fatal("the crawl never reached /held")
	}
	m := regexp.MustCompile(`metrics: http://(\S+)/metrics`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no metrics address in %q", stderr.String())
	}
	resp, err := http.Get("http://" + m[1] + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Errorf("%s: status %d", path, resp.StatusCode)
	}
	return string(body)
}

// TestCrawlMetricsAuthorities: the command line serves no per-authority
// series unless --metrics-authorities asks for them, and then at most
// that many; / links to /metrics; the histogram and heed_build_info are
// served.
func TestCrawlMetricsAuthorities(t *testing.T) {
	off := heldScrape(t, "/metrics")
	if strings.Contains(off, "heed_authority_pages_total") {
		t.Errorf("per-authority series without --metrics-authorities:\n%s", off)
	}
	for _, want := range []string{`heed_request_duration_seconds_bucket{agent="HeedBot",class="2xx",le="+Inf"} 2`, "heed_build_info{", "go_goroutines "} {
		if !strings.Contains(off, want) {
			t.Errorf("no %q in\n%s", want, off)
		}
	}
	on := heldScrape(t, "/metrics", "--metrics-authorities", "1")
	if !regexp.MustCompile(`heed_authority_pages_total\{agent="HeedBot",authority="http://127\.0\.0\.1:\d+"\} 1`).MatchString(on) {
		t.Errorf("no per-authority series with --metrics-authorities 1:\n%s", on)
	}
	if index := heldScrape(t, "/"); !strings.Contains(index, `href="/metrics"`) {
		t.Errorf("/ is %q", index)
	}
	if code, _, stderr := runHeed(t, "crawl", "--agent", "HeedBot", "--metrics-authorities", "-1", "http://127.0.0.1:1/"); code != 2 || !strings.Contains(stderr, "--metrics-authorities -1") {
		t.Errorf("--metrics-authorities -1: exit %d %s", code, stderr)
	}
}

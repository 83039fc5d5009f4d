package download_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/skiplog"
)

// silentServer answers /robots.txt with 404 (no rules) and nothing else:
// every other request waits, without a byte of response, until the
// client goes away or the test ends. Under /slow/ it sends the headers
// and part of the body, then waits.
func silentServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/slow/") {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("0123456789"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv
}

// TestTimeoutSaysItIsTheRequestTimeout: a download cut by the request
// timeout, before its headers or in its body, fails with a TimeoutError
// that names the timeout and its value and still is a
// context.DeadlineExceeded; one ended by the caller's context, by its
// cancellation or its own deadline, is not called a request timeout.
func TestTimeoutSaysItIsTheRequestTimeout(t *testing.T) {
	srv := silentServer(t)
	d := newDownloader(t, download.Config{Timeout: 150 * time.Millisecond, MaxBody: 1000})
	for _, path := range []string{"/never", "/slow/body"} {
		_, err := d.Fetch(context.Background(), &frontier.Request{URL: srv.URL + path})
		var te *download.TimeoutError
		if !errors.As(err, &te) || te.Limit != 150*time.Millisecond {
			t.Errorf("%s: %v; want a TimeoutError of 150ms", path, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v is not a context.DeadlineExceeded", path, err)
		}
		if err == nil || !strings.Contains(err.Error(), "request timeout") || !strings.Contains(err.Error(), "150ms") {
			t.Errorf("%s: %q does not name the request timeout and its value", path, err)
		}
	}

	d = newDownloader(t, download.Config{Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := d.Fetch(ctx, &frontier.Request{URL: srv.URL + "/never"})
	var te *download.TimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("cancelled by the caller: %v; want context.Canceled, not a request timeout", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = d.Fetch(ctx, &frontier.Request{URL: srv.URL + "/never"})
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) {
		t.Errorf("past the caller's own deadline: %v; want context.DeadlineExceeded, not a request timeout", err)
	}
}

// TestTimeoutInTheSkipLog: a page that never answers within WithTimeout
// is skip-logged as fetch-error with an Err that names the request
// timeout and its value, not only "context deadline exceeded".
func TestTimeoutInTheSkipLog(t *testing.T) {
	srv := silentServer(t)
	var skips bytes.Buffer
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithTimeout(150*time.Millisecond),
		crawler.WithRetries(0, time.Millisecond), crawler.WithSkipLog(&skips))
	if err != nil {
		t.Fatal(err)
	}
	crawltest.Run(t, c, srv.URL+"/never")
	recs := crawltest.SkipsByURL(t, crawltest.ReadSkips(t, &skips))
	r := recs[srv.URL+"/never"]
	if r == nil || r.Reason != skiplog.FetchError {
		t.Fatalf("record %+v; want fetch-error", r)
	}
	if !strings.Contains(r.Err, "request timeout") || !strings.Contains(r.Err, "150ms") || !strings.Contains(r.Err, "WithTimeout") {
		t.Errorf("Err %q does not name the request timeout and its value", r.Err)
	}
}

package download

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/frontier"
)

// TestDownloaderBodies: whatever way a server sends a body (with its
// length or without, compressed, cut short, too long, in another charset,
// or not at all), the downloader hands on the body colly would have, cut
// at the cap, and colly's view of the response carries the same body.
func TestDownloaderBodies(t *testing.T) {
	const max = 1000
	page := bytes.Repeat([]byte("0123456789"), 80)  // 800 bytes, under the cap
	long := bytes.Repeat([]byte("abcdefghij"), 150) // 1,500 bytes, over it
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/length", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Write(page)
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, _ *http.Request) {
		w.Write(page[:100])
		w.(http.Flusher).Flush()
		w.Write(page[100:])
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(long)))
		w.Write(long)
	})
	mux.HandleFunc("/long-chunked", func(w http.ResponseWriter, _ *http.Request) {
		w.(http.Flusher).Flush()
		w.Write(long)
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz(page))
	})
	mux.HandleFunc("/gzip-bomb", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz(bytes.Repeat([]byte{0}, 1<<20)))
	})
	mux.HandleFunc("/short", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Write(page[:300])
		// The handler returns early: net/http closes the connection.
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		path, method string
		status       int
		body         []byte
		truncated    bool
		fails        bool
	}{
		{path: "/length", body: page},
		{path: "/chunked", body: page},
		{path: "/long", body: long[:max], truncated: true},
		{path: "/long-chunked", body: long[:max], truncated: true},
		{path: "/gzip", body: page},
		{path: "/gzip-bomb", body: make([]byte, max), truncated: true},
		{path: "/short", fails: true},
		{path: "/latin1", body: []byte("café")},
		{path: "/empty", status: http.StatusNoContent, body: []byte{}},
		{path: "/length", method: http.MethodHead, body: []byte{}},
	}
	d := newTest(t, Config{UserAgent: "HeedBot/1.0", Timeout: 30 * time.Second, MaxBody: max})
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			resp, err := d.Fetch(context.Background(), &frontier.Request{URL: srv.URL + tt.path, Method: tt.method})
			if tt.fails {
				if err == nil {
					t.Fatalf("got %d bytes, want an error", len(resp.Body))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			status := tt.status
			if status == 0 {
				status = http.StatusOK
			}
			if resp.Status != status || !bytes.Equal(resp.Body, tt.body) || resp.Truncated != tt.truncated {
				t.Errorf("status %d, %d bytes %q (truncated %v); want %d, %d bytes (truncated %v)",
					resp.Status, len(resp.Body), clip(resp.Body), resp.Truncated, status, len(tt.body), tt.truncated)
			}
			cr, _ := resp.Native.(*colly.Response)
			if cr == nil || !bytes.Equal(cr.Body, resp.Body) {
				t.Errorf("colly's response does not carry the body")
			}
			if cr != nil && cr.Request.Headers.Get(callHeader) != "" {
				t.Errorf("colly's request shows heed's %s header", callHeader)
			}
		})
	}
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// TestDownloaderTimeout: the request timeout covers the body, and the
// caller's cancellation ends a download at once.
func TestDownloaderTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte(strings.Repeat("x", 10)))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()

	d := newTest(t, Config{UserAgent: "HeedBot/1.0", Timeout: 100 * time.Millisecond, MaxBody: 1000})
	if resp, err := d.Fetch(context.Background(), &frontier.Request{URL: srv.URL + "/stall"}); err == nil {
		t.Fatalf("a body that stalls past the timeout came back: %d bytes", len(resp.Body))
	}

	d = newTest(t, Config{UserAgent: "HeedBot/1.0", Timeout: time.Minute, MaxBody: 1000})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := d.Fetch(ctx, &frontier.Request{URL: srv.URL + "/stall"})
	if err == nil || ctx.Err() == nil {
		t.Fatalf("err %v after the caller's cancellation", err)
	}
}

// newTest returns a Downloader for cfg, failing tb when New refuses it.
func newTest(tb testing.TB, cfg Config) *Downloader {
	tb.Helper()
	d, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestBodyPools: a recycled body's buffer serves a later body of its size
// class, a body too large for the pools is never pooled, and what a
// pooled buffer is handed out with is exactly the length asked.
func TestBodyPools(t *testing.T) {
	for _, n := range []int{1, 1000, 1024, 1025, 8 << 10, 64 << 10} {
		buf, pooled := getBody(n)
		if !pooled || len(buf) != n || cap(buf) < n || cap(buf) > 2*n && cap(buf) != minPooled {
			t.Errorf("getBody(%d): len %d cap %d pooled %v", n, len(buf), cap(buf), pooled)
		}
		putBody(buf)
	}
	if buf, pooled := getBody(0); pooled || len(buf) != 0 {
		t.Errorf("an empty body: len %d, pooled %v", len(buf), pooled)
	}
	if buf, pooled := getBody(64<<10 + 1); pooled || len(buf) != 64<<10+1 {
		t.Errorf("a body over the pools' largest class: len %d, pooled %v", len(buf), pooled)
	}
	// A buffer that is not a class's size never enters a pool.
	putBody(make([]byte, 3000))
	for range 100 {
		if buf, _ := getBody(3000); cap(buf) != 4<<10 {
			t.Fatalf("getBody(3000) has cap %d, want the 4 KiB class", cap(buf))
		}
	}
}

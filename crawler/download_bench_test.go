package crawler

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// benchPage is an 8 KiB HTML page, the size of the throughput
// benchmark's pages (bench/crawl.sh).
var benchPage = func() []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>p</title></head><body>\n")
	for b.Len() < 8<<10-64 {
		b.WriteString(`<p>Lorem ipsum dolor sit amet, <a href="/p/12">a link</a> consectetur.</p>` + "\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}()

// BenchmarkDownloaderFetch downloads one 8 KiB page per iteration from a
// loopback server, over a kept-alive connection, as the crawl's bottom
// stage does: the downloader's own cost (colly's request setup, the
// capped body read, the call's context) above net/http and the server.
func BenchmarkDownloaderFetch(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(benchPage)))
		w.Write(benchPage)
	}))
	defer srv.Close()
	d := newDownloader("HeedBot/1.0", 30*time.Second, 10<<20, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(benchPage)))
	cpu := processCPU()
	for b.Loop() {
		resp, err := d.Fetch(ctx, &frontier.Request{URL: srv.URL + "/p/1"})
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Body) != len(benchPage) || resp.Status != http.StatusOK {
			b.Fatalf("status %d, %d bytes", resp.Status, len(resp.Body))
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkNetHTTPGet is the floor under BenchmarkDownloaderFetch: the
// same page with net/http alone, read into a buffer of its length.
func BenchmarkNetHTTPGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(benchPage)))
		w.Write(benchPage)
	}))
	defer srv.Close()
	client := &http.Client{Transport: defaultTransport()}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchPage)))
	cpu := processCPU()
	for b.Loop() {
		resp, err := client.Get(srv.URL + "/p/1")
		if err != nil {
			b.Fatal(err)
		}
		body := make([]byte, resp.ContentLength)
		n, _ := resp.Body.Read(body)
		for n < len(body) {
			m, err := resp.Body.Read(body[n:])
			n += m
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if n != len(benchPage) {
			b.Fatalf("%d bytes", n)
		}
	}
	reportCPU(b, cpu)
}

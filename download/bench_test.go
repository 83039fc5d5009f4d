package download

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
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
// "kept" keeps every body, as a spider with callbacks does; "recycled"
// gives it back (Response.Recycle), as the engine does for a page only
// heed's own scans read.
func BenchmarkDownloaderFetch(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(benchPage)))
		w.Write(benchPage)
	}))
	defer srv.Close()
	for _, mode := range []string{"kept", "recycled"} {
		b.Run(mode, func(b *testing.B) {
			d := newTest(b, Config{UserAgent: "HeedBot/1.0", Timeout: 30 * time.Second, MaxBody: 10 << 20})
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
				if mode == "recycled" && resp.Recycle != nil {
					resp.Recycle()
				}
			}
			reportCPU(b, cpu)
		})
	}
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
	client := &http.Client{Transport: DefaultTransport()}
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

// BenchmarkAuthorityJarCookies asks for the cookies of a request as the
// http.Client does before every request: on a crawl where no authority
// set any, and on one where another authority did.
func BenchmarkAuthorityJarCookies(b *testing.B) {
	u, _ := url.Parse("http://127.0.0.2:41234/p/17")
	other, _ := url.Parse("http://127.0.0.3:41234/login")
	for _, name := range []string{"none set", "another authority set one"} {
		b.Run(name, func(b *testing.B) {
			j := newAuthorityJar()
			if name != "none set" {
				j.SetCookies(other, []*http.Cookie{{Name: "s", Value: "1"}})
			}
			b.ReportAllocs()
			for b.Loop() {
				if len(j.Cookies(u)) != 0 {
					b.Fatal("a cookie crossed authorities")
				}
			}
		})
	}
}

package testweb

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// The serving benchmarks compare testweb's generated pages with a peer:
// net/http/httptest serving one pre-rendered page of the same size, over
// the same kind of client. Their ratio is testweb's overhead (hit log,
// rendering on request).

func benchGet(b *testing.B, c *http.Client, urlFor func(i int) string) {
	b.Helper()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		resp, err := c.Get(urlFor(i))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n == 0 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
}

func BenchmarkServeGeneratedPage(b *testing.B) {
	g := DefaultGenerated()
	g.Hosts = 1
	s, err := StartGenerated(g, WithHitLimit(1<<30))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Host("g0")
	b.SetBytes(int64(g.PageBytes))
	benchGet(b, s.Client(), func(i int) string { return h.URL(pageURI(i % g.PagesPerHost)) })
}

func BenchmarkServeStaticPeer(b *testing.B) {
	page := bytes.Repeat([]byte("x"), DefaultGenerated().PageBytes)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctypeHTML)
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Write(page)
	}))
	defer srv.Close()
	c := &http.Client{Transport: newTransport(nil)}
	defer c.CloseIdleConnections()
	b.SetBytes(int64(len(page)))
	benchGet(b, c, func(i int) string { return srv.URL + pageURI(i%400) })
}

func BenchmarkRenderGeneratedPage(b *testing.B) {
	g := DefaultGenerated()
	g.Hosts = 2
	gen := newGenerator(g, []*Host{{Authority: "http://127.0.0.2:1"}, {Authority: "http://127.0.0.3:1"}})
	h := gen.host(0)
	var buf bytes.Buffer
	b.SetBytes(int64(g.PageBytes))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf.Reset()
		h.render(&buf, i%g.PagesPerHost, false)
	}
}

// BenchmarkExpectedDefaultGenerated is the oracle's cost on the default
// benchmark site (50 hosts × 400 pages × 10 links).
func BenchmarkExpectedDefaultGenerated(b *testing.B) {
	s, err := StartGenerated(DefaultGenerated())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		if e := s.Expected("HeedBot"); len(e.Fetched) != 20000 {
			b.Fatalf("%d fetched", len(e.Fetched))
		}
	}
}

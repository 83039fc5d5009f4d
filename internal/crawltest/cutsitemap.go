package crawltest

import (
	"context"
	"time"

	"bufio"
	"fmt"
	"github.com/heedcrawl/heed/crawler"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/skiplog"
)

// CutSitemap is a site whose sitemap is being streamed when the crawl
// stops: its first response for /cut.xml sends the first Sent of the
// Pages entries, closes Cut, and sends nothing more until the request
// ends; every later response sends the whole sitemap. Its pages, /p/N,
// answer 200.
type CutSitemap struct {
	URL   string
	Pages int
	Sent  int
	// Cut is closed once the first response has sent its part.
	Cut chan struct{}

	broken bool // every response breaks after Sent entries

	mu      sync.Mutex
	reads   int
	fetched map[string]int // page URL to requests
}

// StartCutSitemap starts a CutSitemap, stopped when the test ends.
func StartCutSitemap(t *testing.T, pages, sent int) *CutSitemap {
	t.Helper()
	return startCutSitemap(t, pages, sent, false)
}

// StartBrokenSitemap starts a CutSitemap whose server breaks the
// connection of every response for /cut.xml once it has sent the first
// Sent entries (Cut closed), the way a reset connection or a server that
// dies mid-body does: the sitemap can never be read to its end.
func StartBrokenSitemap(t *testing.T, pages, sent int) *CutSitemap {
	t.Helper()
	return startCutSitemap(t, pages, sent, true)
}

func startCutSitemap(t *testing.T, pages, sent int, broken bool) *CutSitemap {
	s := &CutSitemap{Pages: pages, Sent: sent, Cut: make(chan struct{}), fetched: map[string]int{}, broken: broken}
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nAllow: /\n")
		case "/cut.xml":
			s.serveSitemap(w, r, done)
		default:
			s.mu.Lock()
			s.fetched[s.URL+r.URL.Path]++
			s.mu.Unlock()
			io.WriteString(w, "<p>listed</p>")
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // before Close: a stalled response ends
	s.URL = srv.URL
	return s
}

func (s *CutSitemap) serveSitemap(w http.ResponseWriter, r *http.Request, done chan struct{}) {
	s.mu.Lock()
	s.reads++
	first := s.reads == 1
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/xml")
	bw := bufio.NewWriter(w)
	io.WriteString(bw, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n")
	for i := range s.Pages {
		if s.broken && i == s.Sent {
			bw.Flush()
			w.(http.Flusher).Flush()
			if first {
				close(s.Cut)
			}
			panic(http.ErrAbortHandler) // the connection is closed mid-body
		}
		if first && i == s.Sent {
			bw.Flush()
			w.(http.Flusher).Flush()
			close(s.Cut)
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		fmt.Fprintf(bw, "<url><loc>%s</loc></url>\n", s.Page(i))
	}
	io.WriteString(bw, "</urlset>\n")
	bw.Flush()
}

// Sitemap is the sitemap's URL.
func (s *CutSitemap) Sitemap() string { return s.URL + "/cut.xml" }

// Page is the URL of the i-th page the sitemap lists.
func (s *CutSitemap) Page(i int) string { return s.URL + "/p/" + strconv.Itoa(i) }

// Reads counts the requests for the sitemap.
func (s *CutSitemap) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// Fetched counts the requests for the page u.
func (s *CutSitemap) Fetched(u string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetched[u]
}

// CheckAccounted checks DESIGN's accounting for the first read pages
// the sitemap lists, over every run the records come from: each is
// fetched once, or has one skip-log record and is not fetched. The pages
// past them must be unknown to the crawl (a sitemap cut after read
// entries, which accounts for them): neither fetched nor recorded.
func (s *CutSitemap) CheckAccounted(t *testing.T, recs []*skiplog.Record, read int) {
	t.Helper()
	logged := map[string]int{}
	for _, r := range recs {
		logged[r.URL]++
	}
	lost := 0
	for i := range s.Pages {
		u := s.Page(i)
		n, rec := s.Fetched(u), logged[u]
		switch {
		case i >= read && (n != 0 || rec != 0):
			t.Errorf("%s, past the %d pages read, fetched %d times, %d skip-log records", u, read, n, rec)
		case i >= read, n == 1 && rec == 0, n == 0 && rec == 1:
		case n == 0 && rec == 0:
			if lost++; lost <= 5 {
				t.Errorf("%s, listed by the sitemap, was neither fetched nor skip-logged", u)
			}
		default:
			t.Errorf("%s: fetched %d times, %d skip-log records", u, n, rec)
		}
	}
	if lost > 5 {
		t.Errorf("... %d listed pages lost in all", lost)
	}
}

// StopWhenQueued calls stop once cut is closed and c has queued n URLs
// in this run (a sitemap being read has pushed its first chunk), or when
// ctx ends.
func StopWhenQueued(ctx context.Context, c *crawler.Crawler, n int64, cut <-chan struct{}, stop func()) {
	select {
	case <-cut:
	case <-ctx.Done():
		return
	}
	for ctx.Err() == nil && c.Stats().Snapshot().Queued < n {
		time.Sleep(time.Millisecond)
	}
	stop()
}

// HangingSitemap is a site whose sitemap, /hang.xml, does not answer the
// first time: its server reads the request and sends nothing, not even
// the headers, until the request ends (Asked is closed when it arrives).
// Every later request for it is answered with a sitemap listing one
// page, Page(), which answers 200.
type HangingSitemap struct {
	URL   string
	Asked chan struct{}

	mu    sync.Mutex
	reads int
	pages int // requests for pages
}

// StartHangingSitemap starts a HangingSitemap, stopped when the test
// ends.
func StartHangingSitemap(t *testing.T) *HangingSitemap {
	t.Helper()
	s := &HangingSitemap{Asked: make(chan struct{})}
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nAllow: /\n")
			return
		}
		if r.URL.Path != "/hang.xml" {
			s.mu.Lock()
			s.pages++
			s.mu.Unlock()
			io.WriteString(w, "<p>listed</p>")
			return
		}
		s.mu.Lock()
		s.reads++
		first := s.reads == 1
		s.mu.Unlock()
		if !first {
			io.WriteString(w, s.Page()+"\n") // a text sitemap
			return
		}
		close(s.Asked)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	s.URL = srv.URL
	return s
}

// Sitemap is the sitemap's URL.
func (s *HangingSitemap) Sitemap() string { return s.URL + "/hang.xml" }

// Page is the URL of the page the sitemap lists once it answers.
func (s *HangingSitemap) Page() string { return s.URL + "/p/0" }

// Reads counts the requests for the sitemap.
func (s *HangingSitemap) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// PagesFetched counts the requests for the page the sitemap lists.
func (s *HangingSitemap) PagesFetched() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages
}

package crawler_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/skiplog"
)

// closedAddr returns a loopback address nothing listens on: connections
// to it are refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A crawl that could fetch nothing says so in its summary, and why: a
// refused connection (robots.txt unreachable for every authority), pages
// whose every fetch fails behind a readable robots.txt. A crawl that
// fetched nothing because robots.txt disallowed it all did what it was
// told, and says nothing of the kind.
func TestSummarySaysNothingWasFetched(t *testing.T) {
	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // no response at all
		}
	}))
	t.Cleanup(hangUp.Close)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /\n")
	}))
	t.Cleanup(refusing.Close)

	for _, tc := range []struct {
		name       string
		seeds      []string
		nothing    bool
		robots     int // authorities whose robots.txt was unreachable
		failed     skiplog.Reason
		message    []string
		authorites int
	}{
		{name: "connection refused", seeds: []string{"http://" + closedAddr(t) + "/"}, nothing: true, robots: 1, authorites: 1,
			failed: skiplog.RobotsUnreachable, message: []string{"no page was fetched", "robots.txt unreachable for every authority (1)", "robots-unreachable=1", "connection refused"}},
		{name: "every fetch fails", seeds: []string{hangUp.URL + "/"}, nothing: true, authorites: 1,
			failed: skiplog.FetchError, message: []string{"no page was fetched", "every URL failed (fetch-error=1)", "EOF"}},
		{name: "robots.txt disallows all", seeds: []string{refusing.URL + "/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := crawler.New("HeedBot", append(testTimings(), crawler.WithSkipLog(io.Discard))...)
			if err != nil {
				t.Fatal(err)
			}
			sum := run(t, c, tc.seeds...)
			nf := sum.NothingFetched
			if !tc.nothing {
				if nf != nil {
					t.Fatalf("NothingFetched %+v for a crawl that did as told", nf)
				}
				return
			}
			if nf == nil {
				t.Fatalf("no NothingFetched; summary %+v", sum.Stats)
			}
			if nf.Authorities != tc.authorites || nf.RobotsUnreachable != tc.robots || nf.Failed[tc.failed] == 0 {
				t.Fatalf("NothingFetched %+v", nf)
			}
			for _, m := range tc.message {
				if !strings.Contains(nf.Error(), m) {
					t.Errorf("message %q lacks %q", nf.Error(), m)
				}
			}
		})
	}
}

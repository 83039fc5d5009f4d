package httpcache

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// site is a fake next Fetcher: an http.Handler answering in memory, with
// the requests it saw.
type site struct {
	mu      sync.Mutex
	handler http.HandlerFunc
	seen    []*http.Request
}

func (s *site) Fetch(_ context.Context, req *frontier.Request) (*middleware.Response, error) {
	m := req.Method
	if m == "" {
		m = http.MethodGet
	}
	hr := httptest.NewRequest(m, req.URL, strings.NewReader(string(req.Body)))
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	s.mu.Lock()
	s.seen = append(s.seen, hr)
	s.mu.Unlock()
	rec := httptest.NewRecorder()
	s.handler(rec, hr)
	resp := &middleware.Response{Request: req, URL: req.URL, Status: rec.Code, Header: rec.Result().Header}
	if req.Kind == frontier.KindSitemap {
		resp.Stream = io.NopCloser(strings.NewReader(rec.Body.String()))
	} else {
		resp.Body = rec.Body.Bytes()
	}
	return resp, nil
}

func (s *site) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

func (s *site) last() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[len(s.seen)-1]
}

// clock is a settable time for the cache and the fake site.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newCache(t *testing.T, p Policy, clk *clock, opts ...Option) (*Cache, *Dir) {
	t.Helper()
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(d, append([]Option{WithPolicy(p), WithClock(clk.now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, d
}

func get(t *testing.T, f middleware.Fetcher, req *frontier.Request) *middleware.Response {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("fetch %s: %v", req.URL, err)
	}
	if resp.Stream != nil {
		b, err := io.ReadAll(resp.Stream)
		resp.Stream.Close()
		if err != nil {
			t.Fatalf("read %s: %v", req.URL, err)
		}
		resp.Body, resp.Stream = b, nil
	}
	return resp
}

func TestReplayServesWithoutContactingTheSite(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := newCache(t, Replay{}, clk)
	n := 0
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Cache-Control", "no-store") // Replay ignores it
		io.WriteString(w, "page "+strings.Repeat("x", n))
	}}
	f := c.Stage()(s)
	req := func() *frontier.Request { return &frontier.Request{URL: "http://a.example/p"} }
	first := get(t, f, req())
	clk.add(365 * 24 * time.Hour)
	second := get(t, f, req())
	if s.hits() != 1 || string(second.Body) != string(first.Body) || !second.FromCache || first.FromCache {
		t.Fatalf("site hits %d, bodies %q %q, from cache %v %v; want one hit and the same body replayed",
			s.hits(), first.Body, second.Body, first.FromCache, second.FromCache)
	}
	if st := c.Stats(); st.Hits != 1 || st.Misses != 1 || st.Stored != 1 {
		t.Errorf("stats = %+v", st)
	}
	// A POST is another request: its body is part of the key.
	post := &frontier.Request{URL: "http://a.example/p", Method: "POST", Body: []byte("a=1")}
	get(t, f, post)
	get(t, f, &frontier.Request{URL: post.URL, Method: "POST", Body: []byte("a=1")})
	get(t, f, &frontier.Request{URL: post.URL, Method: "POST", Body: []byte("a=2")})
	if s.hits() != 3 {
		t.Errorf("site hits %d after two posts of one body and one of another; want 3", s.hits())
	}
}

func TestReplayKeepsNoTransientFailure(t *testing.T) {
	clk := &clock{t: time.Now()}
	c, _ := newCache(t, Replay{}, clk, WithMaxAge(time.Hour))
	status := http.StatusServiceUnavailable
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }}
	f := c.Stage()(s)
	get(t, f, &frontier.Request{URL: "http://a.example/"})
	status = http.StatusNotFound
	get(t, f, &frontier.Request{URL: "http://a.example/"})
	if r := get(t, f, &frontier.Request{URL: "http://a.example/"}); r.Status != 404 || s.hits() != 2 {
		t.Fatalf("status %d after %d hits; want the 404 replayed, the 503 never stored", r.Status, s.hits())
	}
	clk.add(2 * time.Hour)
	get(t, f, &frontier.Request{URL: "http://a.example/"})
	if s.hits() != 3 {
		t.Errorf("an entry older than the max age was replayed (%d hits)", s.hits())
	}
}

// A stored robots.txt is served for at most the robots max age, whatever
// the policy says, so a changed robots.txt takes effect.
func TestRobotsEntryAgesOut(t *testing.T) {
	clk := &clock{t: time.Now()}
	c, _ := newCache(t, Replay{}, clk)
	body := "User-agent: *\nAllow: /\n"
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }}
	f := c.Stage()(s)
	robots := func() *frontier.Request {
		return &frontier.Request{URL: "http://a.example/robots.txt", Kind: frontier.KindRobots}
	}
	get(t, f, robots())
	clk.add(23 * time.Hour)
	get(t, f, robots())
	if s.hits() != 1 {
		t.Fatalf("robots.txt refetched within 24 hours (%d hits)", s.hits())
	}
	body = "User-agent: *\nDisallow: /\n"
	clk.add(2 * time.Hour)
	if r := get(t, f, robots()); s.hits() != 2 || string(r.Body) != body {
		t.Fatalf("after 25 hours: %d hits, body %q; want the new robots.txt fetched", s.hits(), r.Body)
	}
}

// A sitemap's streamed body is stored as it is read, and only when it was
// read to the end.
func TestStreamStoredWhenReadWhole(t *testing.T) {
	c, _ := newCache(t, Replay{}, &clock{t: time.Now()})
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<urlset></urlset>") }}
	f := c.Stage()(s)
	sm := func(u string) *frontier.Request { return &frontier.Request{URL: u, Kind: frontier.KindSitemap} }
	// Read two bytes and stop: not stored.
	resp, err := f.Fetch(context.Background(), sm("http://a.example/partial.xml"))
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Stream, make([]byte, 2))
	resp.Stream.Close()
	get(t, f, sm("http://a.example/partial.xml"))
	if s.hits() != 2 {
		t.Fatalf("a partly read stream was stored (%d hits)", s.hits())
	}
	if r := get(t, f, sm("http://a.example/partial.xml")); s.hits() != 2 || string(r.Body) != "<urlset></urlset>" {
		t.Fatalf("whole stream: %d hits, body %q", s.hits(), r.Body)
	}
	// A page at the same URL is another entry.
	get(t, f, &frontier.Request{URL: "http://a.example/partial.xml"})
	if s.hits() != 3 {
		t.Errorf("a page was served the sitemap's entry")
	}
}

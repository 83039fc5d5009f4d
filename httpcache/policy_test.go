package httpcache

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// TestRFC9111MaxAgeAndETag: a response with max-age is served without the
// site while fresh; once stale it is revalidated with its ETag, a 304
// serves the stored body and makes it fresh again, and a 200 replaces it.
func TestRFC9111MaxAgeAndETag(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	c, _ := newCache(t, RFC9111{}, clk)
	etag, body := `"v1"`, "version one"
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", clk.now().Format(http.TimeFormat))
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, body)
	}}
	f := c.Stage()(s)
	req := func() *frontier.Request { return &frontier.Request{URL: "http://a.example/p"} }

	get(t, f, req())
	clk.add(59 * time.Second)
	if r := get(t, f, req()); s.hits() != 1 || !r.FromCache {
		t.Fatalf("fresh entry: %d site hits, from cache %v; want 1, true", s.hits(), r.FromCache)
	}
	clk.add(2 * time.Second)
	r := get(t, f, req())
	if s.hits() != 2 || s.last().Header.Get("If-None-Match") != `"v1"` {
		t.Fatalf("stale entry: %d hits, If-None-Match %q; want a conditional request", s.hits(), s.last().Header.Get("If-None-Match"))
	}
	if r.Status != 200 || string(r.Body) != "version one" || r.FromCache {
		t.Fatalf("after 304: status %d body %q from cache %v; want the stored 200 body, the site asked", r.Status, r.Body, r.FromCache)
	}
	// The 304 made it fresh for another 60 s.
	clk.add(30 * time.Second)
	get(t, f, req())
	if s.hits() != 2 {
		t.Fatalf("revalidated entry not fresh again (%d hits)", s.hits())
	}
	// The page changes: the conditional request gets a 200, which replaces
	// the entry.
	etag, body = `"v2"`, "version two"
	clk.add(61 * time.Second)
	if r := get(t, f, req()); string(r.Body) != "version two" || s.hits() != 3 {
		t.Fatalf("changed page: body %q, %d hits", r.Body, s.hits())
	}
	if r := get(t, f, req()); string(r.Body) != "version two" || s.hits() != 3 || !r.FromCache {
		t.Fatalf("replaced entry: body %q, %d hits", r.Body, s.hits())
	}
	if st := c.Stats(); st.Hits != 3 || st.Revalidated != 1 || st.Misses != 2 {
		t.Errorf("stats = %+v; want 3 hits, 1 revalidated, 2 misses", st)
	}
}

// TestRFC9111LastModified revalidates with If-Modified-Since when the
// response has no ETag, and takes the Last-Modified heuristic (a tenth of
// the time since the modification) as its freshness.
func TestRFC9111LastModified(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	c, _ := newCache(t, RFC9111{}, clk)
	modified := clk.now().Add(-100 * time.Minute).Format(http.TimeFormat)
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", clk.now().Format(http.TimeFormat))
		w.Header().Set("Last-Modified", modified)
		if r.Header.Get("If-Modified-Since") == modified {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, "body")
	}}
	f := c.Stage()(s)
	req := func() *frontier.Request { return &frontier.Request{URL: "http://a.example/lm"} }
	get(t, f, req())
	clk.add(9 * time.Minute)
	get(t, f, req())
	if s.hits() != 1 {
		t.Fatalf("heuristic freshness (10 min) not honoured: %d hits", s.hits())
	}
	clk.add(2 * time.Minute)
	if r := get(t, f, req()); s.hits() != 2 || string(r.Body) != "body" || s.last().Header.Get("If-Modified-Since") != modified {
		t.Fatalf("stale: %d hits, body %q, If-Modified-Since %q", s.hits(), r.Body, s.last().Header.Get("If-Modified-Since"))
	}
}

// TestRFC9111Directives: no-store is never stored, no-cache always asks
// the site, the Age a response arrived with shortens its freshness, and a
// Vary'd response is not served to a request with other header values.
func TestRFC9111Directives(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		header  map[string]string
		after   time.Duration
		reqHdr  http.Header // the second request's headers
		want    int         // site hits after two requests
		wantIf  string      // If-None-Match of the second request
		comment string
	}{
		{"no-store", map[string]string{"Cache-Control": "max-age=600, no-store"}, time.Second, nil, 2, "", "never stored"},
		{"no-cache", map[string]string{"Cache-Control": "max-age=600, no-cache", "ETag": `"e"`}, time.Second, nil, 2, `"e"`, "revalidated at once"},
		{"age", map[string]string{"Cache-Control": "max-age=60", "Age": "50", "ETag": `"e"`}, 15 * time.Second, nil, 2, `"e"`, "50 s old on arrival: stale 10 s later"},
		{"fresh", map[string]string{"Cache-Control": "max-age=60", "Age": "30"}, 15 * time.Second, nil, 1, "", "still fresh"},
		{"expires", map[string]string{"Expires": base.Add(time.Minute).Format(http.TimeFormat)}, 30 * time.Second, nil, 1, "", "fresh until Expires"},
		{"expired", map[string]string{"Expires": "0"}, time.Second, nil, 2, "", "Expires: 0 is stale"},
		{"private", map[string]string{"Cache-Control": "private, max-age=60"}, time.Second, nil, 1, "", "a private cache may keep it"},
		{"vary", map[string]string{"Cache-Control": "max-age=60", "Vary": "Accept-Language"}, time.Second,
			http.Header{"Accept-Language": {"fr"}}, 2, "", "other Accept-Language"},
		{"request no-cache", map[string]string{"Cache-Control": "max-age=60", "ETag": `"e"`}, time.Second,
			http.Header{"Cache-Control": {"no-cache"}}, 2, `"e"`, "the request asks for revalidation"},
		{"no validator", map[string]string{"Cache-Control": "max-age=1"}, 5 * time.Second, nil, 2, "", "stale, nothing to revalidate with"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: base}
			c, _ := newCache(t, RFC9111{}, clk)
			s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Date", base.Format(http.TimeFormat))
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				io.WriteString(w, "x")
			}}
			f := c.Stage()(s)
			get(t, f, &frontier.Request{URL: "http://a.example/d"})
			clk.add(tt.after)
			get(t, f, &frontier.Request{URL: "http://a.example/d", Header: tt.reqHdr})
			if s.hits() != tt.want {
				t.Errorf("%s: %d site hits; want %d", tt.comment, s.hits(), tt.want)
			}
			if got := s.last().Header.Get("If-None-Match"); got != tt.wantIf {
				t.Errorf("%s: If-None-Match %q; want %q", tt.comment, got, tt.wantIf)
			}
		})
	}
}

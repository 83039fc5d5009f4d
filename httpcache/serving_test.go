package httpcache

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// TestStageServingSeesOnlyHits: the served stage runs for a response from
// the store and for nothing the site answered; when it refuses, the entry
// is not served, the refusal goes up, and no hit is counted.
func TestStageServingSeesOnlyHits(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := newCache(t, Replay{}, clk)
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") }}
	refuse := errors.New("refused")
	var seen int
	var fail bool
	served := func(next middleware.Fetcher) middleware.Fetcher {
		return middleware.FetcherFunc(func(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
			seen++
			if fail {
				return nil, refuse
			}
			return next.Fetch(ctx, req)
		})
	}
	f := c.StageServing(served)(s)
	req := func() *frontier.Request { return &frontier.Request{URL: "http://a.example/p"} }
	get(t, f, req())
	if seen != 0 {
		t.Fatalf("served ran %d times for a response from the site, want 0", seen)
	}
	if r := get(t, f, req()); !r.FromCache || string(r.Body) != "page" || seen != 1 {
		t.Fatalf("hit: from cache %v, body %q, served ran %d times; want the stored page through served once", r.FromCache, r.Body, seen)
	}
	fail = true
	if r, err := f.Fetch(context.Background(), req()); !errors.Is(err, refuse) || r != nil {
		t.Fatalf("refused hit: response %v, error %v; want no response and the refusal", r, err)
	}
	if st := c.Stats(); st.Hits != 1 || st.Misses != 1 || s.hits() != 1 {
		t.Errorf("stats %+v, site hits %d; want 1 hit, 1 miss, the site asked once", st, s.hits())
	}
}

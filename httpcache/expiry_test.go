package httpcache

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// TestMaxAgeFetchesOldEntriesAgain: under either policy, an entry at most
// the max age old is served, an older one goes to the site (fetched
// whole, not revalidated) and its response replaces it; without a max
// age the policy alone decides.
func TestMaxAgeFetchesOldEntriesAgain(t *testing.T) {
	for _, tt := range []struct {
		name   string
		policy Policy
		maxAge time.Duration
		// want is whether the request at 61 minutes reaches the site.
		want bool
	}{
		{"replay", Replay{}, time.Hour, true},
		{"rfc9111 capped", RFC9111{}, time.Hour, true},
		{"replay without max age", Replay{}, 0, false},
		{"rfc9111 without max age", RFC9111{}, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			c, _ := newCache(t, tt.policy, clk, WithMaxAge(tt.maxAge))
			n := 0
			s := &site{handler: func(w http.ResponseWriter, r *http.Request) {
				n++
				// A day of freshness by HTTP's rules, and a validator.
				w.Header().Set("Cache-Control", "max-age=86400")
				w.Header().Set("ETag", fmt.Sprintf(`"v%d"`, n))
				fmt.Fprintf(w, "version %d", n)
			}}
			f := c.Stage()(s)
			req := func() *frontier.Request { return &frontier.Request{URL: "http://a.example/p"} }
			get(t, f, req())
			clk.add(time.Hour) // exactly the max age: not older than it
			if r := get(t, f, req()); s.hits() != 1 || !r.FromCache || string(r.Body) != "version 1" {
				t.Fatalf("at the max age: %d site hits, from cache %v, body %q; want the stored version 1", s.hits(), r.FromCache, r.Body)
			}
			clk.add(time.Minute)
			r := get(t, f, req())
			if !tt.want {
				if s.hits() != 1 || !r.FromCache || c.Stats().Expired != 0 {
					t.Fatalf("no max age: %d site hits, from cache %v, stats %+v; want the entry served", s.hits(), r.FromCache, c.Stats())
				}
				return
			}
			if s.hits() != 2 || r.FromCache || string(r.Body) != "version 2" {
				t.Fatalf("past the max age: %d site hits, from cache %v, body %q; want version 2 fetched", s.hits(), r.FromCache, r.Body)
			}
			if h := s.last().Header.Get("If-None-Match"); h != "" {
				t.Errorf("an expired entry was revalidated (If-None-Match %s); want it fetched whole", h)
			}
			if st := c.Stats(); st.Expired != 1 || st.Misses != 2 || st.Hits != 1 || st.Stored != 2 {
				t.Errorf("stats %+v; want 1 expired among 2 misses, 1 hit, 2 stored", st)
			}
			// The new response replaced the expired one.
			clk.add(time.Minute)
			if r := get(t, f, req()); s.hits() != 2 || !r.FromCache || string(r.Body) != "version 2" {
				t.Errorf("after the refetch: %d site hits, from cache %v, body %q; want the stored version 2", s.hits(), r.FromCache, r.Body)
			}
		})
	}
}

// A max age shorter than the robots max age expires robots.txt too; a
// longer one leaves it at 24 hours.
func TestMaxAgeAppliesToRobots(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := newCache(t, Replay{}, clk, WithMaxAge(time.Hour))
	s := &site{handler: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") }}
	f := c.Stage()(s)
	robots := func() *frontier.Request {
		return &frontier.Request{URL: "http://a.example/robots.txt", Kind: frontier.KindRobots}
	}
	get(t, f, robots())
	clk.add(2 * time.Hour)
	get(t, f, robots())
	if s.hits() != 2 || c.Stats().Expired != 1 {
		t.Fatalf("robots.txt two hours old under a one-hour max age: %d site hits, stats %+v", s.hits(), c.Stats())
	}
}

package middleware

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// fakeClock is a settable clock for the stages' policies.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// reply is one canned answer of a fake server.
type reply struct {
	status   int
	body     string
	location string
	err      error
}

// fakeWeb answers requests from a table keyed by URL; a URL may have a
// sequence of replies (the last one repeats). It records every request.
type fakeWeb struct {
	mu      sync.Mutex
	replies map[string][]reply
	hits    []string
}

func (w *fakeWeb) Fetch(_ context.Context, req *frontier.Request) (*Response, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hits = append(w.hits, req.URL)
	seq, ok := w.replies[req.URL]
	if !ok {
		return &Response{Request: req, URL: req.URL, Status: 404, Header: http.Header{}}, nil
	}
	r := seq[0]
	if len(seq) > 1 {
		w.replies[req.URL] = seq[1:]
	}
	if r.err != nil {
		return nil, r.err
	}
	h := http.Header{}
	if r.location != "" {
		h.Set("Location", r.location)
	}
	return &Response{Request: req, URL: req.URL, Status: r.status, Header: h, Body: []byte(r.body)}, nil
}

func (w *fakeWeb) count(url string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, h := range w.hits {
		if h == url {
			n++
		}
	}
	return n
}

const heedRobots = "User-agent: *\nDisallow: /\n\n# heed's own group\nUser-agent: HeedBot\nUser-agent: OtherBot\nDisallow: /private/\nAllow: /private/open\nCrawl-delay: 2\nSitemap: /sitemap.xml\n"

func page(u string) *frontier.Request { return &frontier.Request{URL: u} }

func TestRobotsStatusSemantics(t *testing.T) {
	netErr := errors.New("dial tcp: connection refused")
	tests := []struct {
		name       string
		replies    []reply
		url        string
		wantState  RobotsState
		wantReason skiplog.Reason // "" means admitted
		wantDefer  bool
		wantLine   int
		wantRule   string
	}{
		{"2xx rules apply: disallowed", []reply{{status: 200, body: heedRobots}}, "http://a.test/private/x", RobotsAvailable, skiplog.RobotsDisallow, false, 7, "Disallow: /private/"},
		{"2xx rules apply: longer allow wins", []reply{{status: 200, body: heedRobots}}, "http://a.test/private/open", RobotsAvailable, "", false, 0, ""},
		{"named group replaces star", []reply{{status: 200, body: heedRobots}}, "http://a.test/public", RobotsAvailable, "", false, 0, ""},
		{"404 allows everything", []reply{{status: 404}}, "http://a.test/private/x", RobotsUnavailable, "", false, 0, ""},
		{"401 allows everything", []reply{{status: 401}}, "http://a.test/private/x", RobotsUnavailable, "", false, 0, ""},
		{"403 allows everything", []reply{{status: 403}}, "http://a.test/private/x", RobotsUnavailable, "", false, 0, ""},
		{"500 disallows everything", []reply{{status: 500}}, "http://a.test/public", RobotsUnreachable, "", true, 0, ""},
		{"503 disallows everything", []reply{{status: 503}}, "http://a.test/public", RobotsUnreachable, "", true, 0, ""},
		{"429 disallows everything", []reply{{status: 429}}, "http://a.test/public", RobotsUnreachable, "", true, 0, ""},
		{"network error disallows everything", []reply{{err: netErr}}, "http://a.test/public", RobotsUnreachable, "", true, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": tt.replies}}
			clk := newFakeClock()
			rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now})
			var reached []string
			f := rs.Stage()(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
				reached = append(reached, req.URL)
				return &Response{Request: req, Status: 200}, nil
			}))
			_, err := f.Fetch(context.Background(), page(tt.url))
			e, _ := rs.Cached("http://a.test")
			if e == nil || e.State != tt.wantState {
				t.Fatalf("state = %v, want %v", e, tt.wantState)
			}
			var rec *skiplog.Record
			var de *DeferError
			switch {
			case tt.wantReason != "":
				if !errors.As(err, &rec) || rec.Reason != tt.wantReason {
					t.Fatalf("err = %v, want skip %s", err, tt.wantReason)
				}
				if rec.Robots == nil || rec.Robots.Line != tt.wantLine || rec.Robots.Rule != tt.wantRule ||
					rec.Robots.URL != "http://a.test/robots.txt" || rec.Robots.Status != 200 ||
					strings.Join(rec.Robots.Group, ",") != "HeedBot,OtherBot" || len(rec.Robots.GroupLines) != 2 ||
					rec.Robots.GroupLines[0] != 5 || !rec.Robots.FetchedAt.Equal(clk.Now()) {
					t.Errorf("evidence = %+v", rec.Robots)
				}
				if len(reached) != 0 {
					t.Errorf("disallowed URL reached the next stage")
				}
			case tt.wantDefer:
				if !errors.As(err, &de) || de.Reason != "robots-unreachable" || !de.Until.After(clk.Now()) {
					t.Fatalf("err = %v, want a deferral", err)
				}
				if len(reached) != 0 {
					t.Errorf("URL of an unreachable authority reached the next stage")
				}
			default:
				if err != nil || len(reached) != 1 {
					t.Fatalf("err = %v, reached %v; want admitted", err, reached)
				}
			}
		})
	}
}

func TestRobotsSitemapsAndCrawlDelay(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 200, body: heedRobots}}}}
	var got *RobotsEntry
	rs := NewRobots(web, RobotsPolicy{Agent: "heedbot", OnFetched: func(e *RobotsEntry) { got = e }})
	if _, err := rs.Entry(context.Background(), "http://a.test"); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.CrawlDelay() != 2*time.Second {
		t.Fatalf("OnFetched entry %+v", got)
	}
	if len(got.Sitemaps) != 1 || got.Sitemaps[0] != "http://a.test/sitemap.xml" {
		t.Errorf("sitemaps = %v", got.Sitemaps)
	}
}

func TestRobotsRedirects(t *testing.T) {
	chain := func(n int, final reply) map[string][]reply {
		m := map[string][]reply{}
		prev := "http://a.test/robots.txt"
		for i := 1; i <= n; i++ {
			next := "http://b.test/hop" + string(rune('0'+i))
			m[prev] = []reply{{status: []int{301, 302, 307, 308}[i%4], location: next}}
			prev = next
		}
		m[prev] = []reply{final}
		return m
	}
	rules := reply{status: 200, body: "User-agent: *\nDisallow: /blocked/\n"}

	t.Run("5 hops across authorities: rules apply to the original authority", func(t *testing.T) {
		web := &fakeWeb{replies: chain(5, rules)}
		rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot"})
		_, err := rs.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/blocked/x"))
		var rec *skiplog.Record
		if !errors.As(err, &rec) || rec.Reason != skiplog.RobotsDisallow || rec.Robots.Line != 2 || rec.Robots.URL != "http://a.test/robots.txt" {
			t.Fatalf("err = %v", err)
		}
		e, _ := rs.Cached("http://a.test")
		if e.Hops != 5 || e.FinalURL != "http://b.test/hop5" {
			t.Errorf("hops %d final %s", e.Hops, e.FinalURL)
		}
		if _, ok := rs.Cached("http://b.test"); ok {
			t.Error("the redirect target's authority got the rules")
		}
	})
	t.Run("6 hops: unavailable, everything allowed", func(t *testing.T) {
		web := &fakeWeb{replies: chain(6, rules)}
		rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot"})
		if _, err := rs.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/blocked/x")); err != nil {
			t.Fatalf("err = %v", err)
		}
		e, _ := rs.Cached("http://a.test")
		if e.State != RobotsUnavailable || web.count("http://b.test/hop6") != 0 {
			t.Errorf("state %v, sixth hop fetched %d times", e.State, web.count("http://b.test/hop6"))
		}
	})
	t.Run("redirect without Location: unavailable", func(t *testing.T) {
		web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 302}}}}
		rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot"})
		if _, err := rs.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/x")); err != nil {
			t.Fatal(err)
		}
	})
}

func okFetcher() Fetcher {
	return FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		return &Response{Request: req, Status: 200, Header: http.Header{}}, nil
	})
}

func TestRobotsUnreachableRetriesThenGivesUp(t *testing.T) {
	clk := newFakeClock()
	standInForTheSystemClock(t, clk.Now)
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 503}}}}
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, RetryBase: time.Second, RetryMax: 4 * time.Second, GiveUpAfter: 10 * time.Second})
	f := rs.Stage()(okFetcher())
	ctx := context.Background()
	var waits []time.Duration
	for i := 0; i < 20; i++ {
		_, err := f.Fetch(ctx, page("http://a.test/p"))
		var de *DeferError
		var rec *skiplog.Record
		if errors.As(err, &rec) {
			if rec.Reason != skiplog.RobotsUnreachable || rec.Status != 503 {
				t.Fatalf("record %+v", rec)
			}
			break
		}
		if !errors.As(err, &de) {
			t.Fatalf("try %d: err = %v", i, err)
		}
		waits = append(waits, de.Until.Sub(clk.Now()))
		clk.Advance(de.Until.Sub(clk.Now()))
	}
	// 1 s, 2 s, 4 s doubling, then the last try at the give-up time (10 s
	// after the first failure), then the records.
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 3 * time.Second}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
	if n := web.count("http://a.test/robots.txt"); n != 5 {
		t.Errorf("robots.txt fetched %d times, want 5 (one per retry, none after giving up)", n)
	}
	if rec := rs.UnreachableRecord(page("http://a.test/q")); rec == nil || rec.Reason != skiplog.RobotsUnreachable {
		t.Errorf("UnreachableRecord = %v", rec)
	}
}

func TestRobotsRecoversAfter503(t *testing.T) {
	clk := newFakeClock()
	standInForTheSystemClock(t, clk.Now)
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 503}, {status: 503}, {status: 200, body: "User-agent: *\nDisallow: /nope/\n"}}}}
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now})
	f := rs.Stage()(okFetcher())
	for i := 0; i < 2; i++ {
		_, err := f.Fetch(context.Background(), page("http://a.test/p"))
		var de *DeferError
		if !errors.As(err, &de) {
			t.Fatalf("try %d: %v", i, err)
		}
		clk.Advance(de.Until.Sub(clk.Now()))
	}
	if _, err := f.Fetch(context.Background(), page("http://a.test/p")); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	var rec *skiplog.Record
	if _, err := f.Fetch(context.Background(), page("http://a.test/nope/x")); !errors.As(err, &rec) || rec.Robots.Line != 2 {
		t.Fatalf("after recovery the new rules must apply: %v", err)
	}
}

func TestRobotsFreshness(t *testing.T) {
	clk := newFakeClock()
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {
		{status: 200, body: "User-agent: *\nDisallow: /v1/\n"},
		{status: 200, body: "User-agent: *\nDisallow: /v2/\n"},
	}}}
	t.Run("cap of 24 hours", func(t *testing.T) {
		rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", MaxAge: 48 * time.Hour})
		if rs.policy.MaxAge != 24*time.Hour {
			t.Fatalf("MaxAge %v accepted", rs.policy.MaxAge)
		}
	})
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, MaxAge: time.Hour})
	f := rs.Stage()(okFetcher())
	ctx := context.Background()
	if _, err := f.Fetch(ctx, page("http://a.test/v1/x")); err == nil {
		t.Fatal("v1 rules not applied")
	}
	clk.Advance(59 * time.Minute)
	if _, err := f.Fetch(ctx, page("http://a.test/v2/x")); err != nil {
		t.Fatalf("fresh copy refetched early: %v", err)
	}
	clk.Advance(time.Minute)
	var rec *skiplog.Record
	if _, err := f.Fetch(ctx, page("http://a.test/v2/x")); !errors.As(err, &rec) {
		t.Fatal("stale copy used: v2 rules not applied after an hour")
	}
	if !rec.Robots.FetchedAt.Equal(clk.Now()) {
		t.Errorf("evidence names the old fetch: %v", rec.Robots.FetchedAt)
	}
	if _, err := f.Fetch(ctx, page("http://a.test/v1/x")); err != nil {
		t.Errorf("old rules still applied: %v", err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2", n)
	}
}

func TestRobotsRedirectHopIsBlocked(t *testing.T) {
	web := &fakeWeb{replies: map[string][]reply{"http://b.test/robots.txt": {{status: 200, body: "User-agent: *\nDisallow: /nope/\n"}}}}
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot"})
	req := &frontier.Request{URL: "http://b.test/nope/x", Redirects: []string{"http://a.test/go"}}
	_, err := rs.Stage()(okFetcher()).Fetch(context.Background(), req)
	var rec *skiplog.Record
	if !errors.As(err, &rec) || rec.Reason != skiplog.RedirectBlocked || rec.Robots.Line != 2 {
		t.Fatalf("err = %v", err)
	}
}

func TestRobotsDefersWhileAnotherRequestFetches(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	slow := FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		close(started)
		<-release
		return &Response{Request: req, Status: 404, Header: http.Header{}}, nil
	})
	rs := NewRobots(slow, RobotsPolicy{Agent: "HeedBot"})
	f := rs.Stage()(okFetcher())
	done := make(chan error)
	go func() {
		_, err := f.Fetch(context.Background(), page("http://a.test/1"))
		done <- err
	}()
	<-started
	_, err := f.Fetch(context.Background(), page("http://a.test/2"))
	var de *DeferError
	if !errors.As(err, &de) || de.Reason != "robots-pending" {
		t.Fatalf("second request: %v, want a robots-pending deferral", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRobotsNotReadyDefersTheRequest(t *testing.T) {
	until := time.Now().Add(time.Hour)
	busy := FetcherFunc(func(context.Context, *frontier.Request) (*Response, error) {
		return nil, &DeferError{Until: until, Reason: "pacing"}
	})
	rs := NewRobots(busy, RobotsPolicy{Agent: "HeedBot"})
	_, err := rs.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/1"))
	var de *DeferError
	if !errors.As(err, &de) || !de.Until.Equal(until) {
		t.Fatalf("err = %v", err)
	}
	if _, ok := rs.Cached("http://a.test"); ok {
		t.Error("a deferred fetch left an entry")
	}
}

// TestRobotsRefetchDoesNotStarvePages: with a max age shorter than the
// authority's interval, the request that caused a refetch (and was then
// deferred by pacing) proceeds on its return instead of refetching again.
func TestRobotsRefetchDoesNotStarvePages(t *testing.T) {
	clk := newFakeClock()
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 200, body: "User-agent: *\nDisallow: /x/\n"}}}}
	rs := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, MaxAge: 100 * time.Millisecond})
	f := rs.Stage()(okFetcher())
	ctx := context.Background()
	first := &frontier.Request{URL: "http://a.test/1", Seq: 1}
	if _, err := f.Fetch(ctx, first); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second) // stale
	second := &frontier.Request{URL: "http://a.test/2", Seq: 2}
	if _, err := f.Fetch(ctx, second); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second) // stale again when the deferred request comes back
	if _, err := f.Fetch(ctx, second); err != nil {
		t.Fatal(err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2: the returning request must not refetch", n)
	}
}

func TestRobotsUnreachableHonoursRetryAfter(t *testing.T) {
	clk := newFakeClock()
	rs := NewRobots(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		h := http.Header{}
		h.Set("Retry-After", "40")
		return &Response{Request: req, Status: 503, Header: h}, nil
	}), RobotsPolicy{Agent: "HeedBot", Now: clk.Now})
	e, err := rs.Entry(context.Background(), "http://a.test")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.RetryAt.Sub(clk.Now()); got != 40*time.Second {
		t.Errorf("retry in %v, want the 40 s the server asked for", got)
	}
}

// TestRobotsRetryAfterPastTheGiveUp: a robots.txt answering 429 with
// Retry-After: 3600 under a 10-minute give-up is not asked again before
// the hour is over: heed gives up at once, says why, and a max age shorter
// than the hour does not bring the fetch back early.
func TestRobotsRetryAfterPastTheGiveUp(t *testing.T) {
	clk := newFakeClock()
	var fetches int
	rs := NewRobots(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		fetches++
		h := http.Header{}
		h.Set("Retry-After", "3600")
		return &Response{Request: req, Status: 429, Header: h}, nil
	}), RobotsPolicy{Agent: "HeedBot", Now: clk.Now, GiveUpAfter: 10 * time.Minute, MaxAge: time.Minute})
	f := rs.Stage()(okFetcher())
	for i, step := range []time.Duration{0, time.Second, 10 * time.Minute, 30 * time.Minute} {
		clk.Advance(step)
		_, err := f.Fetch(context.Background(), page(fmt.Sprintf("http://a.test/p%d", i)))
		var rec *skiplog.Record
		if !errors.As(err, &rec) || rec.Reason != skiplog.RobotsUnreachable || rec.Status != 429 {
			t.Fatalf("after %v: err = %v, want a robots-unreachable record with status 429", step, err)
		}
		if !strings.Contains(rec.Detail, "Retry-After") {
			t.Errorf("detail %q does not say the server asked to wait", rec.Detail)
		}
	}
	if fetches != 1 {
		t.Errorf("robots.txt fetched %d times within the hour it asked for, want 1", fetches)
	}
	clk.Advance(30 * time.Minute)
	f.Fetch(context.Background(), page("http://a.test/later"))
	if fetches != 2 {
		t.Errorf("robots.txt fetched %d times once the hour was over, want 2", fetches)
	}
}

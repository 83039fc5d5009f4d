package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
)

// saved collects the records a stage's Save hook receives, as a durable
// crawl's state would.
type saved struct{ recs []*RobotsRecord }

func (s *saved) save(rec *RobotsRecord) error {
	// Through JSON, as the crawler stores it, so that the round trip
	// covers the encoding too.
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	var back RobotsRecord
	if err := json.Unmarshal(b, &back); err != nil {
		return err
	}
	s.recs = append(s.recs, &back)
	return nil
}

func (s *saved) last(t *testing.T) *RobotsRecord {
	t.Helper()
	if len(s.recs) == 0 {
		t.Fatal("no record saved")
	}
	return s.recs[len(s.recs)-1]
}

// verdicts runs every URL through the stage and returns its outcome: ""
// for admitted, the skip reason with the deciding line, or "defer".
func verdicts(t *testing.T, rs *Robots, urls []string) []string {
	t.Helper()
	f := rs.Stage()(okFetcher())
	var out []string
	for _, u := range urls {
		_, err := f.Fetch(context.Background(), page(u))
		var rec *skiplog.Record
		var de *DeferError
		switch {
		case err == nil:
			out = append(out, "allow")
		case errors.As(err, &rec):
			line := 0
			if rec.Robots != nil {
				line = rec.Robots.Line
			}
			out = append(out, string(rec.Reason)+"@"+string(rune('0'+line)))
		case errors.As(err, &de):
			out = append(out, "defer")
		default:
			t.Fatalf("%s: %v", u, err)
		}
	}
	return out
}

func TestRobotsRecordRoundTrip(t *testing.T) {
	urls := []string{"http://a.test/", "http://a.test/private/x", "http://a.test/private/open", "http://a.test/public"}
	big := "User-agent: *\nDisallow: /private/\n" + strings.Repeat("# filler line\n", 40000) + "Disallow: /late/\n"
	tests := []struct {
		name    string
		replies []reply
		urls    []string
		state   RobotsState
	}{
		{"available", []reply{{status: 200, body: heedRobots}}, urls, RobotsAvailable},
		{"available through redirects", []reply{{status: 301, location: "http://b.test/r.txt"}}, urls, RobotsAvailable},
		{"unavailable", []reply{{status: 404}}, urls, RobotsUnavailable},
		{"over the parse limit", []reply{{status: 200, body: big}}, []string{"http://a.test/private/x", "http://a.test/late/x"}, RobotsAvailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			web := &fakeWeb{replies: map[string][]reply{
				"http://a.test/robots.txt": tt.replies,
				"http://b.test/r.txt":      {{status: 200, body: heedRobots}},
			}}
			clk := newFakeClock()
			var s saved
			first := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, Save: s.save})
			want := verdicts(t, first, tt.urls)
			orig, _ := first.Cached("http://a.test")
			rec := s.last(t)
			if limit := robots.DefaultMaxBytes; len(rec.Body) > limit+1 {
				t.Errorf("record keeps %d body bytes, more than the limit + 1", len(rec.Body))
			}

			// A new process: no fetch may happen, and everything must be
			// decided as before.
			clk.Advance(time.Hour)
			web2 := &fakeWeb{replies: map[string][]reply{}}
			second := NewRobots(web2, RobotsPolicy{Agent: "HeedBot", Now: clk.Now})
			e, err := second.Restore(rec)
			if err != nil {
				t.Fatal(err)
			}
			if got := verdicts(t, second, tt.urls); !reflect.DeepEqual(got, want) {
				t.Errorf("verdicts after restore %v, want %v", got, want)
			}
			if len(web2.hits) != 0 {
				t.Errorf("restored entry fetched again: %v", web2.hits)
			}
			if e.State != tt.state || !e.FetchedAt.Equal(orig.FetchedAt) || e.Status != orig.Status ||
				e.FinalURL != orig.FinalURL || e.Hops != orig.Hops || e.CrawlDelay() != orig.CrawlDelay() ||
				!reflect.DeepEqual(e.Sitemaps, orig.Sitemaps) || e.SkippedLines != orig.SkippedLines ||
				!reflect.DeepEqual(e.Truncated, orig.Truncated) {
				t.Errorf("restored entry\n%+v\nwant\n%+v", e, orig)
			}
			// The evidence of a restored entry names the original fetch.
			if tt.state == RobotsAvailable {
				_, err := second.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/private/x"))
				var sr *skiplog.Record
				if !errors.As(err, &sr) || !sr.Robots.FetchedAt.Equal(orig.FetchedAt) || sr.Robots.Status != 200 {
					t.Errorf("evidence after restore: %v", err)
				}
			}
			// Freshness continues from the original fetch time: 24 hours
			// after it, not after the restore, the file is fetched again.
			clk.Advance(23 * time.Hour)
			verdicts(t, second, tt.urls[:1])
			if len(web2.hits) != 1 {
				t.Errorf("after 24 h: fetches %v, want one refetch", web2.hits)
			}
		})
	}
}

func TestRobotsRecordGiveUpClockContinues(t *testing.T) {
	clk := newFakeClock()
	standInForTheSystemClock(t, clk.Now)
	policy := RobotsPolicy{Agent: "HeedBot", Now: clk.Now, RetryBase: time.Second, RetryMax: 4 * time.Second, GiveUpAfter: 10 * time.Second}
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 503}}}}
	var s saved
	p1 := policy
	p1.Save = s.save
	first := NewRobots(web, p1)
	f := first.Stage()(okFetcher())
	// Two failed fetches: at 0 s and at 1 s.
	for i := 0; i < 2; i++ {
		_, err := f.Fetch(context.Background(), page("http://a.test/p"))
		var de *DeferError
		if !errors.As(err, &de) {
			t.Fatalf("try %d: %v", i, err)
		}
		clk.Advance(de.Until.Sub(clk.Now()))
	}
	rec := s.last(t)
	if rec.Failures != 2 || rec.State != "unreachable" || rec.Status != 503 || rec.Body != nil {
		t.Fatalf("record %+v", rec)
	}
	first0 := rec.FirstFailure

	// The process stops for 20 s, longer than the give-up time.
	clk.Advance(20 * time.Second)
	second := NewRobots(web, policy)
	if _, err := second.Restore(rec); err != nil {
		t.Fatal(err)
	}
	// Due for a retry: one more fetch, which fails past the give-up time
	// counted from the first failure of the first process.
	_, err := second.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/p"))
	var sr *skiplog.Record
	if !errors.As(err, &sr) || sr.Reason != skiplog.RobotsUnreachable {
		t.Fatalf("after restore: %v, want robots-unreachable (gave up)", err)
	}
	e, _ := second.Cached("http://a.test")
	if !e.FirstFailure.Equal(first0) || e.Failures != 3 {
		t.Errorf("give-up clock restarted: first failure %v (want %v), failures %d (want 3)", e.FirstFailure, first0, e.Failures)
	}
	if n := web.count("http://a.test/robots.txt"); n != 3 {
		t.Errorf("robots.txt fetched %d times, want 3", n)
	}
}

func TestRobotsRecordRetryWaitsAcrossRestart(t *testing.T) {
	clk := newFakeClock()
	standInForTheSystemClock(t, clk.Now)
	web := &fakeWeb{replies: map[string][]reply{"http://a.test/robots.txt": {{status: 503}}}}
	var s saved
	first := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, RetryBase: 30 * time.Second, Save: s.save})
	if _, err := first.Entry(context.Background(), "http://a.test"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	second := NewRobots(web, RobotsPolicy{Agent: "HeedBot", Now: clk.Now, RetryBase: 30 * time.Second})
	if _, err := second.Restore(s.last(t)); err != nil {
		t.Fatal(err)
	}
	_, err := second.Stage()(okFetcher()).Fetch(context.Background(), page("http://a.test/p"))
	var de *DeferError
	if !errors.As(err, &de) || !de.Until.Equal(s.last(t).RetryAt) {
		t.Fatalf("restored unreachable entry: %v, want a deferral until the saved retry time", err)
	}
	if n := web.count("http://a.test/robots.txt"); n != 1 {
		t.Errorf("retried before its time: %d fetches", n)
	}
}

func TestRobotsRecordRejects(t *testing.T) {
	ok := RobotsRecord{Authority: "http://a.test", URL: "http://a.test/robots.txt", FetchedAt: time.Unix(1, 0), State: "available", Status: 200}
	tests := []struct {
		name   string
		edit   func(r *RobotsRecord)
		stale  bool
		policy int
	}{
		{"unknown state", func(r *RobotsRecord) { r.State = "maybe" }, false, 0},
		{"no authority", func(r *RobotsRecord) { r.Authority = "" }, false, 0},
		{"no fetch time", func(r *RobotsRecord) { r.FetchedAt = time.Time{} }, false, 0},
		{"negative failures", func(r *RobotsRecord) { r.Failures = -1 }, false, 0},
		{"cut at a lower limit", func(r *RobotsRecord) {
			r.Limit = robots.DefaultMaxBytes
			r.Truncated = &robots.Truncation{Limit: robots.DefaultMaxBytes, BytesIgnored: 10}
		}, true, 2 * robots.DefaultMaxBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ok
			tt.edit(&rec)
			rs := NewRobots(okFetcher(), RobotsPolicy{Agent: "HeedBot", MaxBytes: tt.policy})
			_, err := rs.Restore(&rec)
			if err == nil {
				t.Fatal("accepted")
			}
			if errors.Is(err, ErrStaleRecord) != tt.stale {
				t.Errorf("err %v: stale %v, want %v", err, errors.Is(err, ErrStaleRecord), tt.stale)
			}
			if _, ok := rs.Cached("http://a.test"); ok {
				t.Error("a refused record was installed")
			}
		})
	}
}

func TestBudgetSaveAndRestore(t *testing.T) {
	saves := map[uint64]string{}
	b := &Budget{Total: 3, Save: func(seq uint64, auth string) error { saves[seq] = auth; return nil }}
	f := b.Stage()(okFetcher())
	ctx := context.Background()
	for _, seq := range []uint64{1, 2, 2} {
		if _, err := f.Fetch(ctx, &frontier.Request{URL: "http://a.test/" + string(rune('0'+seq)), Seq: seq}); err != nil {
			t.Fatal(err)
		}
	}
	if len(saves) != 2 || saves[1] != "http://a.test" {
		t.Fatalf("saves %v, want one per admitted request", saves)
	}

	// A new process: seq 2 was in flight at the crash and comes back.
	b2 := &Budget{Total: 3}
	b2.Restore(saves)
	f2 := b2.Stage()(okFetcher())
	for _, step := range []struct {
		seq  uint64
		want bool // admitted
	}{{2, true}, {3, true}, {4, false}} {
		_, err := f2.Fetch(ctx, &frontier.Request{URL: "http://a.test/x" + string(rune('0'+step.seq)), Seq: step.seq})
		if (err == nil) != step.want {
			t.Errorf("seq %d: err %v, admitted want %v", step.seq, err, step.want)
		}
	}
	if b2.Spent() != 3 {
		t.Errorf("spent %d, want 3", b2.Spent())
	}

	failing := &Budget{Total: 5, Save: func(uint64, string) error { return errors.New("disk full") }}
	if _, err := failing.Stage()(okFetcher()).Fetch(ctx, &frontier.Request{URL: "http://a.test/", Seq: 1}); err == nil {
		t.Error("a request whose admission could not be saved went on")
	}
}

package frontiertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

func testLeaseOne(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1", "http://a.example/2")
	a1 := next(t, f)
	mustBlock(t, f) // a.example's one lease is taken
	pushURLs(t, f, "http://b.example/1")
	if r := next(t, f); r.URL != "http://b.example/1" {
		t.Fatalf("Next = %s; want b.example's request while a.example is leased", r.URL)
	}
	done(t, f, a1)
	if r := next(t, f); r.URL != "http://a.example/2" {
		t.Fatalf("Next after Done = %s; want a.example/2", r.URL)
	}
}

func testLeaseSeveral(t *testing.T, s *suite) {
	f := s.new(t, frontier.WithLeasesPerAuthority(3))
	pushURLs(t, f, "http://a.example/1", "http://a.example/2", "http://a.example/3", "http://a.example/4")
	var leased []*frontier.Request
	for i := 0; i < 3; i++ {
		leased = append(leased, next(t, f))
	}
	mustBlock(t, f)
	if st := f.Stats(); st.Leased != 3 || st.Queued != 1 {
		t.Errorf("Stats = %+v; want 3 leased, 1 queued", st)
	}
	done(t, f, leased[1])
	if r := next(t, f); r.URL != "http://a.example/4" {
		t.Errorf("Next after Done = %s; want a.example/4", r.URL)
	}
}

func testLeaseErrors(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1", "http://b.example/1")
	r := next(t, f)
	if r.URL != "http://a.example/1" {
		t.Fatalf("Next = %s", r.URL)
	}
	ctx := context.Background()
	for name, err := range map[string]error{
		"Done of a queued request":     f.Done(ctx, &frontier.Request{URL: "http://b.example/1", Seq: r.Seq + 1}),
		"Retry of a queued request":    f.Retry(ctx, &frontier.Request{URL: "http://b.example/1", Seq: r.Seq + 1}, time.Time{}),
		"Done of a never pushed one":   f.Done(ctx, &frontier.Request{URL: "http://c.example/", Seq: 999999}),
		"Done with another URL":        f.Done(ctx, &frontier.Request{URL: "http://b.example/1", Seq: r.Seq}),
		"Done of a nil request":        f.Done(ctx, nil),
		"Retry of a nil request":       f.Retry(ctx, nil, time.Time{}),
		"Done of a request not pushed": f.Done(ctx, &frontier.Request{URL: "http://a.example/1"}),
	} {
		if !errors.Is(err, frontier.ErrNotLeased) {
			t.Errorf("%s: %v; want an error wrapping ErrNotLeased", name, err)
		}
	}
	done(t, f, r)
	if err := f.Done(ctx, r); !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("second Done: %v; want ErrNotLeased", err)
	}
	if err := f.Retry(ctx, r, time.Time{}); !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("Retry after Done: %v; want ErrNotLeased", err)
	}
	if st := f.Stats(); st.Leased != 0 || st.Queued != 1 {
		t.Errorf("Stats = %+v; want 0 leased, 1 queued", st)
	}
}

func testRetryToHead(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1", "http://a.example/2")
	r := next(t, f)
	// Pushed while r is out, with a better key: the retried request still
	// goes before it, at the head of the queue.
	push(t, f, &frontier.Request{URL: "http://a.example/urgent", Priority: 10})
	r.Attempt++
	r.Meta = map[string]string{"why": "503"}
	if err := f.Retry(context.Background(), r, time.Time{}); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	if st := f.Stats(); st.Queued != 3 || st.Leased != 0 || st.Seen != 3 || st.Duplicates != 0 {
		t.Errorf("Stats after Retry = %+v; want 3 queued, 3 seen, nothing else changed", st)
	}
	again := next(t, f)
	if again.URL != "http://a.example/1" || again.Seq != r.Seq || again.Attempt != 1 || again.Meta["why"] != "503" {
		t.Errorf("Next after Retry = %+v; want a.example/1 again with Attempt 1 and its Meta", again)
	}
	done(t, f, again)
	if got := nextDone(t, f, 2); got[0] != "http://a.example/urgent" || got[1] != "http://a.example/2" {
		t.Errorf("then %q; want a.example/urgent and a.example/2", got)
	}
}

func testRetryHold(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://a.example/1", "http://a.example/2", "http://b.example/1", "http://b.example/2")
	first := next(t, f)
	held := authorityOf(t, first)
	notBefore := time.Now().Add(200 * time.Millisecond)
	if err := f.Retry(context.Background(), first, notBefore); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	r := next(t, f)
	if authorityOf(t, r) == held && time.Now().Before(notBefore) {
		t.Fatalf("Next = %s before the hold ended", r.URL)
	}
	if authorityOf(t, r) == held {
		t.Logf("machine too slow to see the other authority first; checking the hold only")
	}
	done(t, f, r)
	sawRetried := false
	for i := 0; i < 3; i++ {
		r := next(t, f)
		if authorityOf(t, r) == held {
			if now := time.Now(); now.Before(notBefore) {
				t.Fatalf("Next = %s at %v, before the hold ended at %v", r.URL, now, notBefore)
			}
			if !sawRetried && r.Seq != first.Seq {
				t.Fatalf("first request of the held authority = %s; want the retried %s", r.URL, first.URL)
			}
			sawRetried = true
		}
		done(t, f, r)
	}
}

func testGateSlowAuthority(t *testing.T, s *suite) {
	g := newFakeGate()
	g.set("http://slow.example", time.Now().Add(time.Hour))
	f := s.new(t, frontier.WithGate(g))
	pushURLs(t, f, "http://slow.example/1", "http://fast.example/1", "http://slow.example/2",
		"http://fast.example/2", "http://fast.example/3")
	for _, u := range nextDone(t, f, 3) {
		if authorityOfURL(u) != "http://fast.example" {
			t.Fatalf("Next = %s; the slow authority is not ready for an hour", u)
		}
	}
	mustBlock(t, f) // not exhausted: slow.example still has work
	if st := f.Stats(); st.Queued != 2 || st.ByAuthority["http://slow.example"] != 2 {
		t.Errorf("Stats = %+v; want slow.example's 2 requests queued", st)
	}
}

func testGateNotBefore(t *testing.T, s *suite) {
	g := newFakeGate()
	readyAt := time.Now().Add(150 * time.Millisecond)
	g.set("http://a.example", readyAt)
	f := s.new(t, frontier.WithGate(g))
	pushURLs(t, f, "http://a.example/1", "http://b.example/1")
	if r := next(t, f); r.URL != "http://b.example/1" {
		t.Fatalf("first Next = %s; want the ready authority's request", r.URL)
	}
	r := next(t, f)
	if now := time.Now(); now.Before(readyAt) {
		t.Fatalf("Next = %s at %v, before the gate's ready time %v", r.URL, now, readyAt)
	}
}

func testGateMovesLater(t *testing.T, s *suite) {
	start := time.Now()
	first, later := start.Add(60*time.Millisecond), start.Add(250*time.Millisecond)
	g := newFakeGate()
	// Asked before the first time, the gate says "then"; at that time the
	// host has answered 429 and the gate says "later".
	g.setFunc("http://a.example", func() time.Time {
		if time.Now().Before(first) {
			return first
		}
		return later
	})
	f := s.new(t, frontier.WithGate(g))
	pushURLs(t, f, "http://a.example/1")
	r := next(t, f)
	if now := time.Now(); now.Before(later) {
		t.Fatalf("Next = %s at +%v; the gate moved the ready time to +%v", r.URL, now.Sub(start), later.Sub(start))
	}
}

func testGateAuthorityNames(t *testing.T, s *suite) {
	g := newFakeGate()
	f := s.new(t, frontier.WithGate(g))
	pushURLs(t, f, "HTTP://A.Example:80/x", "https://b.example:8443/y")
	nextDone(t, f, 2)
	asked := g.askedFor()
	for _, want := range []string{"http://a.example", "https://b.example:8443"} {
		if asked[want] == 0 {
			t.Errorf("gate never asked about %q; asked %v", want, asked)
		}
	}
	for name := range asked {
		if name != "http://a.example" && name != "https://b.example:8443" {
			t.Errorf("gate asked about %q, not a canonical authority", name)
		}
	}
}

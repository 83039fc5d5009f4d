package middleware

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

func TestChainOrder(t *testing.T) {
	var order []string
	stage := func(name string) Stage {
		return func(next Fetcher) Fetcher {
			return FetcherFunc(func(ctx context.Context, req *frontier.Request) (*Response, error) {
				order = append(order, name)
				return next.Fetch(ctx, req)
			})
		}
	}
	f := Chain(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
		order = append(order, "downloader")
		return &Response{Request: req, Status: 200}, nil
	}), stage("scope"), stage("robots"), stage("politeness"))
	if _, err := f.Fetch(context.Background(), page("http://a.test/")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "scope,robots,politeness,downloader" {
		t.Errorf("order = %s", got)
	}
}

func TestScope(t *testing.T) {
	s := &Scope{
		Domains:  []string{"example.com", "127.0.0.2"},
		Include:  []*regexp.Regexp{regexp.MustCompile(`/(docs|blog)/`), regexp.MustCompile(`/$`)},
		Exclude:  []*regexp.Regexp{regexp.MustCompile(`\.pdf$`)},
		MaxDepth: 2,
	}
	tests := []struct {
		url   string
		depth int
		want  skiplog.Reason
	}{
		{"https://example.com/docs/a", 0, ""},
		{"https://www.example.com/blog/b", 1, ""},
		{"https://example.com/", 2, ""},
		{"https://notexample.com/docs/a", 0, skiplog.Offsite},
		{"https://example.com.evil.test/docs/a", 0, skiplog.Offsite},
		{"http://127.0.0.2:8080/docs/", 0, ""},
		{"http://127.0.0.3/docs/", 0, skiplog.Offsite},
		{"http://1.127.0.0.2/docs/", 0, skiplog.Offsite},
		{"https://example.com/docs/a.pdf", 0, skiplog.Filter},
		{"https://example.com/shop/item", 0, skiplog.Filter},
		{"https://example.com/docs/deep", 3, skiplog.Depth},
		{"::not a url", 0, skiplog.InvalidURL},
	}
	for _, tt := range tests {
		err := s.Check(&frontier.Request{URL: tt.url, Depth: tt.depth})
		var rec *skiplog.Record
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: excluded: %v", tt.url, err)
		case tt.want != "" && (!errors.As(err, &rec) || rec.Reason != tt.want):
			t.Errorf("%s: err = %v, want %s", tt.url, err, tt.want)
		}
	}
	if err := (&Scope{}).Check(page("https://anything.test/x")); err != nil {
		t.Errorf("an empty scope excludes: %v", err)
	}
}

func TestBudget(t *testing.T) {
	b := &Budget{Total: 3, PerAuthority: 2}
	f := b.Stage()(okFetcher())
	ctx := context.Background()
	outcome := func(seq uint64, u string) skiplog.Reason {
		_, err := f.Fetch(ctx, &frontier.Request{URL: u, Seq: seq})
		var rec *skiplog.Record
		if errors.As(err, &rec) {
			return rec.Reason
		}
		if err != nil {
			t.Fatal(err)
		}
		return ""
	}
	steps := []struct {
		seq  uint64
		url  string
		want skiplog.Reason
	}{
		{1, "http://a.test/1", ""},
		{1, "http://a.test/1", ""}, // the same request again (deferred, retried): not counted twice
		{2, "http://a.test/2", ""},
		{3, "http://a.test/3", skiplog.MaxPages}, // per authority
		{4, "http://b.test/1", ""},
		{5, "http://b.test/2", skiplog.MaxPages}, // total
	}
	for _, s := range steps {
		if got := outcome(s.seq, s.url); got != s.want {
			t.Errorf("seq %d %s: got %q, want %q", s.seq, s.url, got, s.want)
		}
	}
	if b.Spent() != 3 {
		t.Errorf("spent %d", b.Spent())
	}
	if _, err := f.Fetch(ctx, &frontier.Request{URL: "http://b.test/sitemap.xml", Kind: frontier.KindSitemap, Seq: 9}); err != nil {
		t.Errorf("a sitemap spent the page budget: %v", err)
	}
}

func TestRetry(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	r := &Retry{MaxRetries: 2, Statuses: []int{503, 429}, Base: time.Second, Max: 10 * time.Second, Now: func() time.Time { return now }}
	standInForTheSystemClock(t, r.Now)
	answer := func(status int, retryAfter string, err error) Fetcher {
		return FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
			if err != nil {
				return nil, err
			}
			h := http.Header{}
			if retryAfter != "" {
				h.Set("Retry-After", retryAfter)
			}
			return &Response{Request: req, Status: status, Header: h}, nil
		})
	}
	ctx := context.Background()

	req := page("http://a.test/")
	f := r.Stage()(answer(503, "", nil))
	for i, want := range []time.Duration{time.Second, 2 * time.Second} {
		_, err := f.Fetch(ctx, req)
		var de *DeferError
		if !errors.As(err, &de) || de.Until.Sub(now) != want || de.Status != 503 || req.Attempt != i+1 {
			t.Fatalf("try %d: %v (attempt %d)", i, err, req.Attempt)
		}
	}
	resp, err := f.Fetch(ctx, req)
	if err != nil || resp.Status != 503 {
		t.Fatalf("after the retries the response is returned: %v %v", resp, err)
	}

	_, err = r.Stage()(answer(429, "30", nil)).Fetch(ctx, page("http://a.test/"))
	var de *DeferError
	if !errors.As(err, &de) || de.Until.Sub(now) != 30*time.Second || de.RetryAfter != "30" {
		t.Fatalf("Retry-After must win over a shorter backoff: %v", err)
	}

	req = page("http://a.test/")
	boom := errors.New("connection reset")
	f = r.Stage()(answer(0, "", boom))
	f.Fetch(ctx, req)
	f.Fetch(ctx, req)
	_, err = f.Fetch(ctx, req)
	var rec *skiplog.Record
	if !errors.As(err, &rec) || rec.Reason != skiplog.FetchError || !strings.Contains(rec.Err, "connection reset") {
		t.Fatalf("spent retries on a network error: %v", err)
	}

	skip := &skiplog.Record{URL: "http://a.test/", Reason: skiplog.RobotsDisallow}
	if _, err := r.Stage()(answer(0, "", skip)).Fetch(ctx, page("http://a.test/")); !errors.Is(err, skip) {
		t.Errorf("a stage's decision was retried: %v", err)
	}
}

type fakePacer struct {
	ok       bool
	at       time.Time
	err      error
	released []politeness.Feedback
	// asked holds the context of every call, TryAcquire's and Release's.
	asked []context.Context
}

func (p *fakePacer) TryAcquire(ctx context.Context, _ string) (bool, time.Time, error) {
	p.asked = append(p.asked, ctx)
	return p.ok, p.at, p.err
}
func (p *fakePacer) Release(ctx context.Context, _ string, fb politeness.Feedback) {
	p.asked = append(p.asked, ctx)
	p.released = append(p.released, fb)
}

func TestPolitenessStage(t *testing.T) {
	ctx := context.Background()
	t.Run("not ready: deferred, next not called", func(t *testing.T) {
		at := time.Now().Add(time.Minute)
		p := &fakePacer{at: at}
		called := false
		f := Politeness(p)(FetcherFunc(func(context.Context, *frontier.Request) (*Response, error) { called = true; return nil, nil }))
		_, err := f.Fetch(ctx, page("http://a.test/"))
		var de *DeferError
		if !errors.As(err, &de) || !de.Until.Equal(at) || called || len(p.released) != 0 {
			t.Fatalf("err %v called %v", err, called)
		}
	})
	t.Run("crawl-delay over the cap: skipped", func(t *testing.T) {
		p := &fakePacer{err: &politeness.DelayTooLongError{Authority: "http://a.test", Delay: time.Hour, Cap: 30 * time.Second}}
		_, err := Politeness(p)(okFetcher()).Fetch(ctx, page("http://a.test/"))
		var rec *skiplog.Record
		if !errors.As(err, &rec) || rec.Reason != skiplog.CrawlDelayTooLong {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("feedback from responses and retry deferrals", func(t *testing.T) {
		p := &fakePacer{ok: true}
		retry := &Retry{MaxRetries: 1, Statuses: []int{503}, Base: time.Second}
		f := Politeness(p)(retry.Stage()(FetcherFunc(func(_ context.Context, req *frontier.Request) (*Response, error) {
			h := http.Header{}
			h.Set("Retry-After", "7")
			return &Response{Request: req, Status: 503, Header: h}, nil
		})))
		f.Fetch(ctx, page("http://a.test/"))
		if len(p.released) != 1 || p.released[0].Status != 503 || p.released[0].RetryAfter != "7" {
			t.Fatalf("released %+v", p.released)
		}
	})
	t.Run("the pacer is asked on the request's context", func(t *testing.T) {
		// A pacer that keeps its state in Redis waits for it on this
		// context, so that a cancelled request does not wait out the
		// store's retry budget.
		type key struct{}
		rctx := context.WithValue(ctx, key{}, "this request")
		p := &fakePacer{ok: true}
		if _, err := Politeness(p)(okFetcher()).Fetch(rctx, page("http://a.test/")); err != nil {
			t.Fatal(err)
		}
		if len(p.asked) != 2 {
			t.Fatalf("pacer asked %d times; want TryAcquire and Release", len(p.asked))
		}
		for i, c := range p.asked {
			if c.Value(key{}) != "this request" {
				t.Errorf("call %d to the pacer did not get the request's context", i)
			}
		}
	})
}

// standInForTheSystemClock makes clock the system clock that deferrals
// are given in (systemNow) for the test, so that a test on a fake clock
// reads a deferral's Until on that clock.
func standInForTheSystemClock(t *testing.T, clock func() time.Time) {
	t.Helper()
	saved := systemNow
	systemNow = clock
	t.Cleanup(func() { systemNow = saved })
}

package discovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// fakeEngine is a crawl as a Reader sees it: a frontier that knows every
// URL once, and the records written.
type fakeEngine struct {
	mu      sync.Mutex
	seen    map[string]bool
	batches []int
	skips   []*skiplog.Record
	// onEnqueue, when set, runs before each batch is queued.
	onEnqueue func(n int)
}

func (e *fakeEngine) Enqueue(_ context.Context, reqs []*frontier.Request) []frontier.PushResult {
	if e.onEnqueue != nil {
		e.onEnqueue(len(reqs))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.seen == nil {
		e.seen = map[string]bool{}
	}
	e.batches = append(e.batches, len(reqs))
	res := make([]frontier.PushResult, len(reqs))
	for i, r := range reqs {
		if e.seen[r.URL] {
			res[i] = frontier.Duplicate
			continue
		}
		e.seen[r.URL] = true
		res[i] = frontier.Added
	}
	return res
}
func (e *fakeEngine) Skip(rec *skiplog.Record)                       { e.skips = append(e.skips, rec) }
func (e *fakeEngine) Fetched(string, int, int)                       {}
func (e *fakeEngine) Redirect(context.Context, *middleware.Response) {}
func (e *fakeEngine) Robots(string) (*middleware.RobotsEntry, bool)  { return nil, false }

// read downloads and reads one sitemap as a crawl would, and returns
// what Handle does.
func read(t *testing.T, m *Reader, url string, timeout time.Duration) error {
	t.Helper()
	req := &frontier.Request{URL: url, Kind: frontier.KindSitemap}
	resp, err := Download(context.Background(), http.DefaultTransport, "HeedBot/1.0", timeout, req)
	if err != nil {
		t.Fatal(err)
	}
	return m.Handle(context.Background(), resp)
}

// urlset serves a sitemap of n URLs, the first dup of them twice; with
// hang, the body then stalls until the request ends.
func urlset(n, dup int, hang bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "<url><loc>http://%s/p/%d</loc></url>\n", r.Host, i)
		}
		for i := 0; i < dup; i++ {
			fmt.Fprintf(w, "<url><loc>http://%s/p/%d</loc></url>\n", r.Host, i)
		}
		if hang {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, `</urlset>`)
	}
}

// TestPagesAreQueuedInChunksWithTheirResults checks that the pages a
// sitemap lists are queued in chunks, not one push each, and that each
// page's own result is counted: queued or already known.
func TestPagesAreQueuedInChunksWithTheirResults(t *testing.T) {
	srv := httptest.NewServer(urlset(1200, 100, false))
	defer srv.Close()
	eng := &fakeEngine{}
	m := New(&Config{}, eng, nil)
	read(t, m, srv.URL+"/sitemap.xml", 10*time.Second)
	st := m.Stats()
	if st.Read != 1 || st.Listed != 1300 || st.PagesQueued != 1200 || st.Duplicates != 100 || st.Skipped != 0 || st.Incomplete != 0 {
		t.Errorf("stats %+v, want 1,300 listed: 1,200 queued and 100 known", st)
	}
	if want := []int{512, 512, 276}; fmt.Sprint(eng.batches) != fmt.Sprint(want) {
		t.Errorf("batches %v, want %v", eng.batches, want)
	}
}

// TestQueueingDoesNotSpendTheDeadline checks that the request timeout of
// a sitemap counts the network, not the time its pages take to be
// queued: a frontier slower than the timeout does not cut the sitemap.
func TestQueueingDoesNotSpendTheDeadline(t *testing.T) {
	srv := httptest.NewServer(urlset(2000, 0, false))
	defer srv.Close()
	const timeout = time.Second
	var once sync.Once
	eng := &fakeEngine{onEnqueue: func(int) {
		// A store slower than the whole timeout, once.
		once.Do(func() { time.Sleep(2 * timeout) })
	}}
	m := New(&Config{}, eng, nil)
	read(t, m, srv.URL+"/sitemap.xml", timeout)
	st := m.Stats()
	if st.Read != 1 || st.Failed != 0 || st.PagesQueued != 2000 {
		t.Errorf("stats %+v (sitemaps %+v), want the sitemap read and its 2,000 pages queued", st, st.Sitemaps)
	}
}

// TestACutSitemapIsReportedIncomplete checks that a sitemap whose body
// stalls past the timeout is failed, counted incomplete with its error,
// the pages read before the cut queued, that the summary says so, and
// that the sitemap has a fetch-error record saying how many entries were
// read and why the rest were not.
func TestACutSitemapIsReportedIncomplete(t *testing.T) {
	srv := httptest.NewServer(urlset(3, 0, true))
	defer srv.Close()
	eng := &fakeEngine{}
	m := New(&Config{}, eng, nil)
	read(t, m, srv.URL+"/sitemap.xml", 300*time.Millisecond)
	if len(eng.skips) != 1 {
		t.Fatalf("%d skip-log records, want the cut sitemap's", len(eng.skips))
	}
	if rec := eng.skips[0]; rec.URL != srv.URL+"/sitemap.xml" || rec.Reason != skiplog.FetchError ||
		!strings.Contains(rec.Detail, "3 entries read") || !strings.Contains(rec.Err, "timeout of 300ms") {
		t.Errorf("record %+v; want fetch-error, 3 entries read, the timeout", rec)
	}
	st := m.Stats()
	if st.Failed != 1 || st.Incomplete != 1 || st.PagesQueued != 3 || len(st.Sitemaps) != 1 {
		t.Fatalf("stats %+v, want one incomplete sitemap and its 3 pages queued", st)
	}
	if err := st.Sitemaps[0].Err; !strings.Contains(err, "timeout of 300ms") {
		t.Errorf("error %q does not name the timeout", err)
	}
	var b bytes.Buffer
	st.Format(&b)
	if !strings.Contains(b.String(), "INCOMPLETE: 1 sitemaps not read to their end") || !strings.Contains(b.String(), srv.URL+"/sitemap.xml: ") {
		t.Errorf("summary does not say the sitemap is incomplete:\n%s", b.String())
	}
}

// TestAMissingSitemapIsNotIncomplete checks that a 404 (a missing
// /sitemap.xml) is failed but lists nothing the crawl could miss, while a
// 500 is incomplete.
func TestAMissingSitemapIsNotIncomplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing.xml" {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer srv.Close()
	m := New(&Config{}, &fakeEngine{}, nil)
	read(t, m, srv.URL+"/missing.xml", time.Second)
	read(t, m, srv.URL+"/broken.xml", time.Second)
	if st := m.Stats(); st.Failed != 2 || st.Incomplete != 1 {
		t.Errorf("failed %d incomplete %d, want 2 and 1", st.Failed, st.Incomplete)
	}
}

// TestStopCutsASitemapBeingRead checks that the crawl's stop cuts a
// sitemap whose body stalls, without waiting for its timeout: Handle says
// it was interrupted after the entries it read, those pages are queued,
// and the sitemap is counted interrupted, neither read nor failed nor
// incomplete.
func TestStopCutsASitemapBeingRead(t *testing.T) {
	srv := httptest.NewServer(urlset(3, 0, true))
	defer srv.Close()
	m := New(&Config{}, &fakeEngine{}, nil)
	go func() {
		for i := 0; i < 10_000 && m.Stats().Listed < 3; i++ {
			time.Sleep(time.Millisecond)
		}
		m.Stop()
	}()
	err := read(t, m, srv.URL+"/sitemap.xml", time.Minute)
	var cut *Interrupted
	if !errors.As(err, &cut) || cut.Entries != 3 || cut.Request.URL != srv.URL+"/sitemap.xml" {
		t.Fatalf("Handle = %v; want the sitemap interrupted after its 3 entries", err)
	}
	st := m.Stats()
	if st.Interrupted != 1 || st.Read != 0 || st.Failed != 0 || st.Incomplete != 0 || st.PagesQueued != 3 {
		t.Errorf("stats %+v; want one sitemap interrupted and its 3 pages queued", st)
	}
	if len(st.Sitemaps) != 1 || !st.Sitemaps[0].Interrupted || !strings.Contains(st.Sitemaps[0].Err, "after 3 entries") {
		t.Errorf("sitemaps %+v; want the cut one, after 3 entries", st.Sitemaps)
	}
	rec := cut.Record()
	if rec.Reason != skiplog.Interrupted || rec.URL != srv.URL+"/sitemap.xml" || !strings.Contains(rec.Detail, "3 entries read") {
		t.Errorf("record %+v; want interrupted, 3 entries read", rec)
	}
}

// TestNoSitemapIsReadAfterTheStop checks that a sitemap whose response
// arrives once the crawl is stopping is cut at once, not read.
func TestNoSitemapIsReadAfterTheStop(t *testing.T) {
	srv := httptest.NewServer(urlset(3, 0, false))
	defer srv.Close()
	eng := &fakeEngine{}
	m := New(&Config{}, eng, nil)
	m.Stop()
	var cut *Interrupted
	if err := read(t, m, srv.URL+"/sitemap.xml", time.Minute); !errors.As(err, &cut) || cut.Entries != 0 {
		t.Fatalf("Handle = %v; want the sitemap interrupted before its first entry", err)
	}
	if st := m.Stats(); st.Interrupted != 1 || st.Listed != 0 || len(eng.batches) != 0 {
		t.Errorf("stats %+v, %d batches queued; want the sitemap interrupted, nothing read", st, len(eng.batches))
	}
}

// TestStopCutsASitemapWaitingForItsResponse checks that the crawl's stop
// cuts a sitemap request still waiting below the Stage (for its pace, or
// for response headers that never come): the Stage returns an
// *Interrupted with no entries read, counted interrupted, not failed.
func TestStopCutsASitemapWaitingForItsResponse(t *testing.T) {
	m := New(&Config{}, &fakeEngine{}, nil)
	waiting := make(chan struct{})
	next := middleware.FetcherFunc(func(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
		close(waiting)
		select { // a server that never answers, within the request timeout
		case <-ctx.Done():
			return nil, fmt.Errorf("download %s: %w", req.URL, context.Cause(ctx))
		case <-time.After(30 * time.Second):
			return nil, fmt.Errorf("download %s: timeout of 30s: %w", req.URL, context.DeadlineExceeded)
		}
	})
	go func() {
		<-waiting
		m.Stop()
	}()
	req := &frontier.Request{URL: "http://a.test/sitemap.xml", Kind: frontier.KindSitemap}
	_, err := m.Stage()(next).Fetch(context.Background(), req)
	var cut *Interrupted
	if !errors.As(err, &cut) || cut.Entries != 0 || cut.Request != req {
		t.Fatalf("Fetch = %v; want the sitemap interrupted before its response", err)
	}
	if st := m.Stats(); st.Interrupted != 1 || st.Failed != 0 || st.Incomplete != 0 || len(st.Sitemaps) != 1 {
		t.Errorf("stats %+v; want one sitemap interrupted", st)
	}
}

// TestASitemapWithoutAResponseIsFailedOnce checks that a sitemap that
// gets no response is counted failed and incomplete once, whether the
// retry stage below spent its tries (its fetch-error record) or the
// error is not one it retries, and that a request deferred for a retry
// or excluded below (the budget) is not counted failed.
func TestASitemapWithoutAResponseIsFailedOnce(t *testing.T) {
	req := func(path string) *frontier.Request {
		return &frontier.Request{URL: "http://a.test" + path, Kind: frontier.KindSitemap}
	}
	for _, tc := range []struct {
		name   string
		err    error
		failed int64
	}{
		{"tries spent", &skiplog.Record{URL: "http://a.test/s.xml", Reason: skiplog.FetchError, Err: "connection refused"}, 1},
		{"not retried", errors.New("download: connection refused"), 1},
		{"deferred", &middleware.DeferError{Reason: "retry"}, 0},
		{"over the budget", &skiplog.Record{URL: "http://a.test/s.xml", Reason: skiplog.MaxPages}, 0},
	} {
		m := New(&Config{}, &fakeEngine{}, nil)
		next := middleware.FetcherFunc(func(context.Context, *frontier.Request) (*middleware.Response, error) { return nil, tc.err })
		if _, err := m.Stage()(next).Fetch(context.Background(), req("/s.xml")); err != tc.err {
			t.Errorf("%s: Fetch = %v, want the error from below, %v", tc.name, err, tc.err)
		}
		if st := m.Stats(); st.Failed != tc.failed || st.Incomplete != tc.failed || st.Interrupted != 0 || int64(len(st.Sitemaps)) != tc.failed {
			t.Errorf("%s: failed %d, incomplete %d, interrupted %d, described %d; want %d, %d, 0, %d",
				tc.name, st.Failed, st.Incomplete, st.Interrupted, len(st.Sitemaps), tc.failed, tc.failed, tc.failed)
		}
	}
}

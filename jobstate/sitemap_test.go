package jobstate_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
)

// TestStateReadsALargeSitemapWithinTheTimeout reads the hostile site's
// 60,000-URL sitemap into a durable job under a short request timeout:
// the pushes to the durable frontier must not be what the body's
// deadline cuts. The sitemap is read to its 50,000-entry limit, every
// entry is queued, and the sitemap report says it was cut by that limit
// and by nothing else, and the skip log says it was cut there. The crawl
// is paused (the job kept) once the sitemap's body is closed.
func TestStateReadsALargeSitemapWithinTheTimeout(t *testing.T) {
	h := crawltest.StartHostile(t, testweb.HostileConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	big := h.Sitemaps + "/big.xml"
	dir := t.TempDir()
	c, err := crawler.New("HeedBot",
		crawler.WithBackend(jobstate.Dir(dir)),
		crawler.WithSitemaps(big),
		crawler.WithTimeout(5*time.Second),
		crawler.WithDelay(0),
		crawler.WithTransport(closeWatch{next: http.DefaultTransport, url: big, closed: cancel}),
	)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sum, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run paused %v after it started", time.Since(start).Round(time.Millisecond))
	st := sum.Sitemaps
	if len(st.Sitemaps) != 1 {
		t.Fatalf("sitemaps described: %+v", st.Sitemaps)
	}
	res := st.Sitemaps[0]
	t.Logf("sitemap: %+v", res)
	if res.Err != "" || st.Failed != 0 || st.Read != 1 {
		t.Errorf("the sitemap was not read to its end: read %d failed %d, error %q", st.Read, st.Failed, res.Err)
	}
	if res.URLs != 50_000 || res.TruncatedBy != "max-urls" || st.Truncated != 1 {
		t.Errorf("read %d URLs, truncated by %q, want the 50,000 of the sitemap limit", res.URLs, res.TruncatedBy)
	}
	if st.Listed != 50_000 || st.PagesQueued != 50_000 || st.Duplicates != 0 || st.Skipped != 0 {
		t.Errorf("listed %d: queued %d, known %d, skipped %d; want 50,000 queued", st.Listed, st.PagesQueued, st.Duplicates, st.Skipped)
	}
	var cut *skiplog.Record
	for _, r := range readSkipLog(t, filepath.Join(dir, "skipped.jsonl")) {
		if r.URL == big {
			cut = r
		}
	}
	if cut == nil || cut.Reason != skiplog.SitemapLimit || !strings.Contains(cut.Detail, "50000 entries read") || !strings.Contains(cut.Detail, "max-urls") {
		t.Errorf("the sitemap's record: %+v; want sitemap-limit, 50000 entries read, max-urls", cut)
	}
}

// closeWatch calls closed when the body of url's response is closed.
type closeWatch struct {
	next   http.RoundTripper
	url    string
	closed func()
}

func (w closeWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err != nil || !strings.HasPrefix(req.URL.String(), w.url) {
		return resp, err
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, closed: w.closed}
	return resp, nil
}

type watchedBody struct {
	io.ReadCloser
	once   sync.Once
	closed func()
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.closed)
	return err
}

// TestStateRereadsASitemapCutByThePause pauses a job while its sitemap
// is being streamed, once it has queued a first chunk of the pages the
// sitemap lists: the sitemap is not read to its end, so it stays in the
// job's queue, and the resumed job reads it again, whole. Every page it
// lists is then fetched once (those queued before the pause come back as
// duplicates), and nothing is skip-logged.
func TestStateRereadsASitemapCutByThePause(t *testing.T) {
	s := crawltest.StartCutSitemap(t, 1000, 600)
	dir := t.TempDir()
	run := func(pause bool) crawler.Summary {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := crawler.New("HeedBot",
			crawler.WithBackend(jobstate.Dir(dir)),
			crawler.WithSitemaps(s.Sitemap()),
			crawler.WithDelay(0),
			crawler.WithTimeout(2*time.Second),
		)
		if err != nil {
			t.Fatal(err)
		}
		if pause {
			go crawltest.StopWhenQueued(ctx, c, 512, s.Cut, cancel)
		}
		sum, err := c.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	first := run(true)
	info := jobstate.InfoOf(first.Backend)
	if !first.Interrupted || info == nil || info.Job.Complete {
		t.Fatalf("first run: interrupted %v, state %+v", first.Interrupted, info)
	}
	st := first.Sitemaps
	t.Logf("first run: sitemap %+v", st.Sitemaps)
	if st.Read != 0 || st.Failed != 0 || st.Interrupted != 1 || st.Incomplete != 0 {
		t.Errorf("the cut sitemap counted read %d, failed %d, interrupted %d, incomplete %d; want 0, 0, 1, 0", st.Read, st.Failed, st.Interrupted, st.Incomplete)
	}
	if st.PagesQueued < 512 || st.Listed > int64(s.Sent) {
		t.Errorf("first run queued %d of the %d entries read; want at least a chunk of 512, at most the %d sent", st.PagesQueued, st.Listed, s.Sent)
	}
	second := run(false)
	if second.Interrupted || !jobstate.InfoOf(second.Backend).Job.Complete {
		t.Fatalf("resumed run: interrupted %v, state %+v", second.Interrupted, jobstate.InfoOf(second.Backend))
	}
	if n := s.Reads(); n != 2 {
		t.Errorf("the sitemap was requested %d times over two runs; want 2 (cut, then read again)", n)
	}
	if re := second.Sitemaps; re.Read != 1 || re.Listed != int64(s.Pages) || re.Duplicates != st.PagesQueued || re.PagesQueued != int64(s.Pages)-st.PagesQueued {
		t.Errorf("resumed run read %d sitemaps listing %d pages: %d queued, %d known; want 1 listing %d: %d queued, %d known",
			re.Read, re.Listed, re.PagesQueued, re.Duplicates, s.Pages, int64(s.Pages)-st.PagesQueued, st.PagesQueued)
	}
	recs := readSkipLog(t, filepath.Join(dir, "skipped.jsonl"))
	for _, r := range recs {
		t.Errorf("skip-logged %s: %s %s", r.URL, r.Reason, r.Detail)
	}
	s.CheckAccounted(t, recs, s.Pages)
}

// TestStatePutsBackASitemapWaitingForItsHeaders pauses a job while its
// sitemap's server has sent nothing yet: the pause cuts the request at
// once (Run returns well before the 30 s request timeout), the sitemap
// stays in the job's queue, and the resumed job reads it and fetches the
// page it lists; nothing is skip-logged.
func TestStatePutsBackASitemapWaitingForItsHeaders(t *testing.T) {
	s := crawltest.StartHangingSitemap(t)
	dir := t.TempDir()
	run := func(pause bool) crawler.Summary {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := crawler.New("HeedBot",
			crawler.WithBackend(jobstate.Dir(dir)),
			crawler.WithSitemaps(s.Sitemap()),
			crawler.WithDelay(0),
			crawler.WithTimeout(30*time.Second),
		)
		if err != nil {
			t.Fatal(err)
		}
		if pause {
			go func() {
				<-s.Asked
				cancel()
			}()
		}
		done := make(chan crawler.Summary, 1)
		go func() {
			sum, err := c.Run(ctx)
			if err != nil {
				t.Error(err)
			}
			done <- sum
		}()
		select {
		case sum := <-done:
			return sum
		case <-time.After(10 * time.Second):
			t.Fatal("Run still running 10 s after the pause, with the sitemap waiting for its headers")
		}
		return crawler.Summary{}
	}
	first := run(true)
	if info := jobstate.InfoOf(first.Backend); !first.Interrupted || info == nil || info.Job.Complete {
		t.Fatalf("first run: interrupted %v, state %+v", first.Interrupted, info)
	}
	if st := first.Sitemaps; st.Interrupted != 1 || st.Failed != 0 || st.Incomplete != 0 {
		t.Errorf("the cut sitemap counted interrupted %d, failed %d, incomplete %d; want 1, 0, 0", st.Interrupted, st.Failed, st.Incomplete)
	}
	second := run(false)
	if second.Interrupted || !jobstate.InfoOf(second.Backend).Job.Complete {
		t.Fatalf("resumed run: interrupted %v, state %+v", second.Interrupted, jobstate.InfoOf(second.Backend))
	}
	if n, re := s.Reads(), second.Sitemaps; n != 2 || re.Read != 1 || re.PagesQueued != 1 || s.PagesFetched() != 1 {
		t.Errorf("sitemap requested %d times, resumed run read %d listing %d pages queued, the page fetched %d times; want 2, 1, 1, 1",
			n, re.Read, re.PagesQueued, s.PagesFetched())
	}
	for _, r := range readSkipLog(t, filepath.Join(dir, "skipped.jsonl")) {
		t.Errorf("skip-logged %s: %s %s", r.URL, r.Reason, r.Detail)
	}
}

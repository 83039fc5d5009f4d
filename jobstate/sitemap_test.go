package jobstate_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
)

// TestStateReadsALargeSitemapWithinTheTimeout reads the hostile site's
// 60,000-URL sitemap into a durable job under a short request timeout:
// the pushes to the durable frontier must not be what the body's
// deadline cuts. The sitemap is read to its 50,000-entry limit, every
// entry is queued, and the sitemap report says it was cut by that limit
// and by nothing else. The crawl is paused (the job kept) once the
// sitemap's body is closed.
func TestStateReadsALargeSitemapWithinTheTimeout(t *testing.T) {
	h := crawltest.StartHostile(t, testweb.HostileConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	big := h.Sitemaps + "/big.xml"
	c, err := crawler.New("HeedBot",
		crawler.WithBackend(jobstate.Dir(t.TempDir())),
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

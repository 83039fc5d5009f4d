package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
)

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("scrape: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

// TestScrapeDuringCrawl scrapes /metrics while a crawl is held inside a
// request, then after it, and checks the families against the summary.
func TestScrapeDuringCrawl(t *testing.T) {
	hold, release := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/slow">slow</a> <a href="/private/x">p</a> <a href="/missing">m</a>`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		close(hold)
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<p>done</p>`)
	})
	mux.HandleFunc("/missing", http.NotFound)
	site := httptest.NewServer(mux)
	defer site.Close()

	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithConcurrencyPerHost(2))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	c.OnHTML("p", func(e *crawler.HTMLElement) { e.Emit(map[string]string{"p": e.Text}) })
	srv, err := metrics.Listen("127.0.0.1:0", c.Stats(), prometheus.Labels{"agent": c.Agent()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	done := make(chan crawler.Summary)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sum, err := c.Run(ctx, site.URL+"/")
		if err != nil {
			t.Error(err)
		}
		done <- sum
	}()
	select {
	case <-hold:
	case <-time.After(30 * time.Second):
		t.Fatal("the crawl never reached /slow")
	}
	during := scrape(t, srv.Addr())
	// /slow is held, so at least it is in flight (/missing may be too).
	if v := value(t, during, `heed_requests_in_flight{agent="HeedBot"}`); v < 1 {
		t.Errorf("in flight %v during the crawl", v)
	}
	if !strings.Contains(during, `heed_robots_fetches_total{agent="HeedBot",outcome="available"} 1`) {
		t.Errorf("during the crawl, no robots.txt fetch in\n%s", during)
	}
	close(release)
	sum := <-done
	after := scrape(t, srv.Addr())
	auth := site.URL
	for _, want := range []string{
		fmt.Sprintf(`heed_pages_total{agent="HeedBot"} %d`, sum.Stats.Pages),
		`heed_responses_total{agent="HeedBot",status="404"} 1`,
		`heed_responses_total{agent="HeedBot",status="200"} 2`,
		`heed_skipped_total{agent="HeedBot",reason="robots-disallow"} 1`,
		`heed_items_total{agent="HeedBot"} 1`,
		`heed_requests_in_flight{agent="HeedBot"} 0`,
		fmt.Sprintf(`heed_authority_pages_total{agent="HeedBot",authority=%q} 3`, auth),
		fmt.Sprintf(`heed_authority_skipped_total{agent="HeedBot",authority=%q,reason="robots-disallow"} 1`, auth),
	} {
		if !strings.Contains(after, want) {
			t.Errorf("after the crawl, no %q in\n%s", want, after)
		}
	}
	if sum.Stats.Pages != 3 {
		t.Errorf("%d pages", sum.Stats.Pages)
	}
}

// value returns the sample of the series named exactly so.
func value(t *testing.T, text, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no %s in\n%s", series, text)
	return 0
}

func TestWithoutPerAuthority(t *testing.T) {
	c, _ := crawler.New("HeedBot")
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(c.Stats(), nil, metrics.WithoutPerAuthority()))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "heed_authority_") {
			t.Errorf("%s present", mf.GetName())
		}
	}
	if len(mfs) == 0 {
		t.Error("nothing gathered")
	}
	if _, err := metrics.Listen("256.0.0.1:0", c.Stats(), nil); err == nil {
		t.Error("a bad address accepted")
	}
}

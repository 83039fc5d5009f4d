package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
	"github.com/heedcrawl/heed/stats"
)

// families scrapes /metrics and parses it.
func families(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(scrape(t, addr)))
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// byLabel returns the values of a family's samples keyed by one label.
func byLabel(mf *dto.MetricFamily, label string) map[string]float64 {
	out := map[string]float64{}
	if mf == nil {
		return out
	}
	for _, m := range mf.GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == label {
				out[lp.GetValue()] += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return out
}

// site serves n pages on its own authority: / links to /1 .. /n-1.
func site(n int) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			for i := 1; i < n; i++ {
				fmt.Fprintf(w, `<a href="/%d">%d</a>`, i, i)
			}
		}
	})
	return httptest.NewServer(mux)
}

// TestAuthorityLimit: past the limit, authorities are counted together
// as "other"; an authority that got its own series keeps it, so the
// per-authority counts add up to the crawl's and none goes down.
func TestAuthorityLimit(t *testing.T) {
	b, c3, d := site(3), site(2), site(1)
	defer b.Close()
	defer c3.Close()
	defer d.Close()
	hold, release := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/slow">slow</a>`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		close(hold)
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<a href="%s/">b</a> <a href="%s/">c</a> <a href="%s/">d</a>`, b.URL, c3.URL, d.URL)
	})
	a := httptest.NewServer(mux)
	defer a.Close()

	cr, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithAllowedDomains("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	cr.FollowLinks()
	srv, err := metrics.Listen("127.0.0.1:0", cr.Stats(), nil, metrics.WithAuthorityLimit(2))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	done := make(chan crawler.Summary)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sum, err := cr.Run(ctx, a.URL+"/")
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
	// Only a's pages are known yet: a gets its series now, and keeps it.
	if got := byLabel(families(t, srv.Addr())["heed_authority_pages_total"], "authority"); len(got) != 1 || got[a.URL] != 1 {
		t.Errorf("during the crawl: %v", got)
	}
	close(release)
	sum := <-done
	got := byLabel(families(t, srv.Addr())["heed_authority_pages_total"], "authority")
	// b is the largest of the three found after a; c and d are "other".
	want := map[string]float64{a.URL: 2, b.URL: 3, metrics.Other: 3}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages by authority %v, want %v", got, want)
	}
	var total float64
	for _, v := range got {
		total += v
	}
	if total != float64(sum.Stats.Pages) {
		t.Errorf("per-authority pages add up to %v, the crawl downloaded %d", total, sum.Stats.Pages)
	}
	if got := byLabel(families(t, srv.Addr())["heed_authorities"], "robots"); got["available"] != 4 {
		t.Errorf("authorities by robots.txt state %v", got)
	}
}

// TestServed: the duration histogram by status class, Go's and the
// process's collectors, heed_build_info, and the index page at /.
func TestServed(t *testing.T) {
	s := site(2)
	defer s.Close()
	cr, _ := crawler.New("HeedBot", crawler.WithDelay(0))
	cr.FollowLinks()
	srv, err := metrics.Listen("127.0.0.1:0", cr.Stats(), prometheus.Labels{"agent": "HeedBot"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := cr.Run(context.Background(), s.URL+"/", s.URL+"/missing"); err != nil {
		t.Fatal(err)
	}
	mfs := families(t, srv.Addr())
	h := mfs["heed_request_duration_seconds"]
	if h.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("heed_request_duration_seconds: %v", h)
	}
	counts := map[string]uint64{}
	for _, m := range h.GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "class" {
				counts[lp.GetValue()] = m.GetHistogram().GetSampleCount()
			}
		}
		if n := len(m.GetHistogram().GetBucket()); n != len(stats.DurationBuckets)+1 { // and +Inf
			t.Errorf("%d buckets", n)
		}
	}
	// 2xx: robots.txt, /, /1 and /missing (the site answers any path).
	if want := map[string]uint64{"2xx": 4}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("requests by class %v, want %v", counts, want)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "heed_build_info"} {
		if mfs[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	if runtime.GOOS == "linux" && mfs["process_resident_memory_bytes"] == nil {
		t.Error("no process_resident_memory_bytes")
	}
	bi := mfs["heed_build_info"].GetMetric()[0]
	labels := map[string]string{}
	for _, lp := range bi.GetLabel() {
		labels[lp.GetName()] = lp.GetValue()
	}
	if labels["goversion"] != runtime.Version() || labels["version"] == "" || bi.GetGauge().GetValue() != 1 {
		t.Errorf("heed_build_info %v = %v", labels, bi.GetGauge().GetValue())
	}
	if _, ok := labels["revision"]; !ok {
		t.Error("heed_build_info has no revision label")
	}

	resp, err := http.Get("http://" + srv.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), `<a href="/metrics">`) || !strings.Contains(string(page), "HeedBot") {
		t.Errorf("/: %d %s", resp.StatusCode, page)
	}
	resp, err = http.Get("http://" + srv.Addr() + "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("/nothing: %d", resp.StatusCode)
	}
}

package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
)

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	Panels     []dashPanel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type dashPanel struct {
	Title   string      `json:"title"`
	Type    string      `json:"type"`
	Panels  []dashPanel `json:"panels"` // a collapsed row's
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// dashboardQueries returns every PromQL expression of the dashboard by
// where it is: a panel's title, or a variable's name.
func dashboardQueries(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]string{}
	var walk func([]dashPanel)
	walk = func(ps []dashPanel) {
		for _, p := range ps {
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q queries nothing", p.Title)
			}
			for _, tg := range p.Targets {
				out["panel "+p.Title] = append(out["panel "+p.Title], tg.Expr)
			}
		}
	}
	walk(d.Panels)
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*[A-Za-z_]\w*\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			if err := json.Unmarshal(v.Query, &q.Query); err != nil {
				t.Fatalf("variable %s: query %s", v.Name, v.Query)
			}
		}
		// Grafana's label_values(SELECTOR, LABEL): the selector is PromQL.
		m := labelValues.FindStringSubmatch(strings.TrimSpace(q.Query))
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, q.Query)
			continue
		}
		out["variable "+v.Name] = append(out["variable "+v.Name], m[1])
	}
	return out
}

// servedNames are the sample names an exposition holds: a histogram's
// family as NAME_bucket, NAME_sum and NAME_count, a summary's as NAME,
// NAME_sum and NAME_count.
func servedNames(mfs map[string]*dto.MetricFamily) map[string]bool {
	served := map[string]bool{}
	for name, mf := range mfs {
		if len(mf.GetMetric()) == 0 {
			continue
		}
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			served[name+"_bucket"], served[name+"_sum"], served[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			served[name], served[name+"_sum"], served[name+"_count"] = true, true, true
		default:
			served[name] = true
		}
	}
	return served
}

// dashboardSite has a page of every kind the dashboard shows: items (one
// dropped), a robots.txt exclusion, a 404, a 500 retried, and links to
// a second host.
func dashboardSite(t *testing.T) string {
	other := site(2)
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<p>keep</p><p>drop</p> <a href="/private/x">p</a> <a href="/gone">g</a> <a href="/broken">b</a> <a href="%s/">o</a>`, other.URL)
	})
	mux.HandleFunc("/gone", http.NotFound)
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s.URL
}

// TestDashboardQueriesServed: every metric the Grafana dashboard queries
// is served by /metrics during a crawl: a renamed or removed metric
// breaks this test, not someone's dashboard.
func TestDashboardQueriesServed(t *testing.T) {
	queries := dashboardQueries(t, "dashboard.json")
	start := dashboardSite(t)
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithRetries(1, time.Millisecond),
		crawler.WithAllowedDomains("127.0.0.1"), crawler.WithSkipLog(new(strings.Builder)))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	c.OnHTML("p", func(e *crawler.HTMLElement) { e.Emit(map[string]string{"p": e.Text}) })
	c.Pipeline(crawler.Stage(func(_ context.Context, it map[string]string) (map[string]string, error) {
		if it["p"] == "drop" {
			return nil, crawler.Drop("unwanted")
		}
		return it, nil
	}))
	srv, err := metrics.Listen("127.0.0.1:0", c.Stats(), prometheus.Labels{"agent": c.Agent()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Run(ctx, start+"/"); err != nil {
		t.Fatal(err)
	}
	served := servedNames(families(t, srv.Addr()))

	queried := map[string]bool{}
	for where, exprs := range queries {
		for _, expr := range exprs {
			names, err := promqlNames(expr)
			if err != nil {
				t.Errorf("%s: %q: %v", where, expr, err)
				continue
			}
			if len(names) == 0 {
				t.Errorf("%s: %q selects no metric", where, expr)
			}
			for _, n := range names {
				queried[n] = true
				if !served[n] {
					t.Errorf("%s queries %s, which /metrics does not serve", where, n)
				}
			}
		}
	}
	// The panels an operator needs are there.
	for _, n := range []string{"heed_pages_total", "heed_request_duration_seconds_count", "heed_request_duration_seconds_bucket",
		"heed_frontier_waiting", "heed_authorities", "heed_skipped_total", "heed_authority_pages_total"} {
		if !queried[n] {
			t.Errorf("the dashboard has no panel on %s", n)
		}
	}
}

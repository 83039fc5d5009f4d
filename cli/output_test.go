package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/pages"
)

// syncBuffer is a bytes.Buffer safe for the crawl's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func smallSite(t *testing.T) *testweb.Site {
	t.Helper()
	return startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, PageBytes: 512, LinksPerPage: 3, Seed: 5})
}

// TestCrawlFeedFormats: --out picks the format from the name, --format
// overrides it, .gz compresses, and - writes to standard output with the
// summary moved to standard error.
func TestCrawlFeedFormats(t *testing.T) {
	site := smallSite(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		out    string
		format string
		gz     bool
		check  func(t *testing.T, b []byte) int
	}{
		{"pages.csv", "", false, csvRows},
		{"pages.json.gz", "", true, jsonArray},
		{"pages.data", "jsonl", false, jsonLines},
		{"pages.csv.gz", "json", true, jsonArray},
		{"-", "csv", false, csvRows},
	} {
		t.Run(tt.out+tt.format, func(t *testing.T) {
			out := tt.out
			if out != "-" {
				out = filepath.Join(dir, tt.out)
			}
			args := []string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--skiplog", filepath.Join(dir, "skips.jsonl"), "--out", out}
			if tt.format != "" {
				args = append(args, "--format", tt.format)
			}
			code, stdout, stderr := runHeed(t, append(args, site.Seeds()...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			var b []byte
			summary := stdout
			if out == "-" {
				b, summary = []byte(stdout), stderr
			} else {
				var err error
				if b, err = os.ReadFile(out); err != nil {
					t.Fatal(err)
				}
			}
			if tt.gz {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				if b, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if n := tt.check(t, b); n != 12 {
				t.Errorf("%d items, want 12", n)
			}
			if !strings.Contains(summary, "items: 12 exported") {
				t.Errorf("summary:\n%s", summary)
			}
		})
	}
	for _, bad := range [][]string{
		{"--out", filepath.Join(dir, "pages.txt")},
		{"--out", "-"},
		{"--out", filepath.Join(dir, "p.jsonl"), "--format", "xml"},
		{"--format", "csv"},
	} {
		code, _, stderr := runHeed(t, append(append([]string{"crawl", "--agent", "HeedBot", "--progress", "never", "--skiplog", ""}, bad...), site.Seeds()...)...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", bad, code, stderr)
		}
	}
}

func csvRows(t *testing.T, b []byte) int {
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) == 0 || rows[0][0] != "url" {
		t.Fatalf("not a CSV feed with a header: %v\n%s", err, b)
	}
	return len(rows) - 1
}

func jsonArray(t *testing.T, b []byte) int {
	var got []pages.Page
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, b)
	}
	return len(got)
}

func jsonLines(t *testing.T, b []byte) int {
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p pages.Page
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		n++
	}
	return n
}

// TestCrawlConfigFile: settings come from the file, the command line wins
// over it, the file's urls are the seeds, and mistakes are usage errors.
func TestCrawlConfigFile(t *testing.T) {
	site := smallSite(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "crawl.yaml")
	writeFile(t, cfg, fmt.Sprintf(`# a crawl job
agent: HeedBot
urls: [%q]
delay: 0s
progress: never
max-pages: 3
out: %s
skiplog: %s
allow-domain:
  - %s
`, site.Seeds()[0], filepath.Join(dir, "from-file.jsonl"), filepath.Join(dir, "skips.jsonl"), site.Domains()[0]))
	code, stdout, stderr := runHeed(t, "crawl", "--config", cfg, "--max-pages", "5", "--out", filepath.Join(dir, "from-flag.csv"))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "from-flag.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := csvRows(t, b); n != 5 {
		t.Errorf("%d items; --max-pages 5 on the command line must win over the file's 3", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "from-file.jsonl")); err == nil {
		t.Error("the file's out was used although --out was given")
	}
	for name, body := range map[string]string{
		"unknown key":    "agent: HeedBot\ndelya: 1s\n",
		"bad duration":   "agent: HeedBot\ndelay: soon\n",
		"list for one":   "agent: [A, B]\n",
		"not a mapping":  "- a\n- b\n",
		"nested value":   "agent: {name: HeedBot}\n",
		"config in file": "config: other.yaml\n",
	} {
		writeFile(t, cfg, body)
		if code, _, stderr := runHeed(t, "crawl", "--config", cfg, site.Seeds()[0]); code != 2 || !strings.Contains(stderr, "crawl.yaml") {
			t.Errorf("%s: exit %d, %s", name, code, stderr)
		}
	}
	if code, _, _ := runHeed(t, "crawl", "--config", filepath.Join(dir, "missing.yaml")); code != 2 {
		t.Errorf("a missing config file: exit %d", code)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCrawlMetricsAndStats scrapes --metrics while the crawl is held in a
// request, and reads the --stats-interval lines.
func TestCrawlMetricsAndStats(t *testing.T) {
	hold, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/held">held</a>`)
	})
	mux.HandleFunc("/held", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(hold) })
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `done`)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--skiplog", "",
			"--metrics", "127.0.0.1:0", "--stats-interval", "10ms", site.URL + "/"}, &stdout, &stderr)
	}()
	select {
	case <-hold:
	case <-time.After(30 * time.Second):
		t.Fatal("the crawl never reached /held")
	}
	m := regexp.MustCompile(`metrics: (http://\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		close(release)
		t.Fatalf("no metrics address in %q", stderr.String())
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// Wait for one stats line (bounded), so the test does not depend on
	// the ticker having fired by the time the crawl ends.
	for i := 0; i < 3000 && !strings.Contains(stderr.String(), " msg=stats pages="); i++ {
		time.Sleep(time.Millisecond)
	}
	close(release)
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{`heed_pages_total{agent="HeedBot"} 1`, `heed_requests_in_flight{agent="HeedBot"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
	if !strings.Contains(stderr.String(), " msg=stats pages=") {
		t.Errorf("no stats line in %q", stderr.String())
	}
	if code, _, stderr := runHeed(t, "crawl", "--agent", "HeedBot", "--skiplog", "", "--progress", "never", "--metrics", "256.1.1.1:0", site.URL+"/"); code != 2 {
		t.Errorf("bad --metrics address: exit %d %s", code, stderr)
	}
}

package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/inventory"
)

// sitemapServer is a small site: robots.txt disallows /b and lists a
// sitemap index whose children list /a, /b and /c (with metadata), and a
// missing sitemap when broken is set. It records every path requested.
type sitemapServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newSitemapServer(t *testing.T, broken bool) *sitemapServer {
	t.Helper()
	s := &sitemapServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path)
		s.mu.Unlock()
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /b\nContent-Usage: /c train-ai=n\nSitemap: "+base+"/index.xml\n")
		case "/index.xml":
			body := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + base + `/one.xml</loc></sitemap>`
			if broken {
				body += `<sitemap><loc>` + base + `/gone.xml</loc></sitemap>`
			}
			io.WriteString(w, body+`</sitemapindex>`)
		case "/one.xml":
			io.WriteString(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
				`<url><loc>`+base+`/a</loc><lastmod>2026-02-01</lastmod><changefreq>daily</changefreq><priority>0.8</priority></url>`+
				`<url><loc>`+base+`/b</loc><lastmod>2026-02-02</lastmod></url>`+
				`<url><loc>`+base+`/c?x=1,y</loc><lastmod>2024-12-31</lastmod></url>`+
				`</urlset>`)
		case "/a", "/b", "/c":
			io.WriteString(w, "<html><a href=/d>d</a></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sitemapServer) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

func TestInventoryUsageErrors(t *testing.T) {
	t.Chdir(t.TempDir()) // the default skip log, skipped.jsonl, goes there
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no agent", []string{"inventory", "http://127.0.0.1:1/"}, "--agent is required"},
		{"bad agent", []string{"inventory", "--agent", "Heed Bot", "http://127.0.0.1:1/"}, "product token"},
		{"no site", []string{"inventory", "--agent", "HeedBot"}, "at least one site"},
		{"bad format", []string{"inventory", "--agent", "HeedBot", "--format", "xml", "http://127.0.0.1:1/"}, "want jsonl, csv or html"},
		{"bad since", []string{"inventory", "--agent", "HeedBot", "--since", "yesterday", "http://127.0.0.1:1/"}, "--since"},
		{"unknown flag", []string{"inventory", "--agent", "HeedBot", "--nope", "http://127.0.0.1:1/"}, "unknown flag"},
		{"unwritable out", []string{"inventory", "--agent", "HeedBot", "--out", filepath.Join(dir, "no", "such", "dir.csv"), "http://127.0.0.1:1/"}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runHeed(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

func TestInventoryCSV(t *testing.T) {
	t.Chdir(t.TempDir()) // the default skip log, skipped.jsonl, goes there
	s := newSitemapServer(t, false)
	out := filepath.Join(t.TempDir(), "inventory.csv")
	code, stdout, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never", "--out", out, s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	const header = "url,lastmod,lastmod_raw,changefreq,priority,sitemap,allowed,reason,line,rule,group,robots_url,problem,duplicate,usage"
	if len(recs) == 0 || strings.Join(recs[0], ",") != header {
		t.Fatalf("header %v, want %s", recs, header)
	}
	sm := s.URL + "/one.xml"
	want := [][]string{
		{s.URL + "/a", "2026-02-01T00:00:00Z", "2026-02-01", "daily", "0.8", sm, "true", "", "", "", "*", s.URL + "/robots.txt", "", "false", ""},
		{s.URL + "/b", "2026-02-02T00:00:00Z", "2026-02-02", "", "", sm, "false", "robots-disallow", "2", "Disallow: /b", "*", s.URL + "/robots.txt", "", "false", ""},
		{s.URL + "/c?x=1,y", "2024-12-31T00:00:00Z", "2024-12-31", "", "", sm, "true", "", "", "", "*", s.URL + "/robots.txt", "", "false", "train-ai=n (line 3)"},
	}
	if len(recs)-1 != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(recs)-1, len(want), recs)
	}
	for i, w := range want {
		if got := recs[i+1]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d:\n got  %q\n want %q", i+1, got, w)
		}
	}
	for _, p := range s.requested() {
		if p == "/a" || p == "/b" || p == "/c" {
			t.Errorf("the inventory fetched the page %s", p)
		}
	}
	for _, w := range []string{"listed in a sitemap but disallowed by robots.txt: 1", s.URL + "/b  line 2: Disallow: /b", "rows: " + out} {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, stdout)
		}
	}
}

func TestInventoryJSONLinesRoundTrip(t *testing.T) {
	t.Chdir(t.TempDir()) // the default skip log, skipped.jsonl, goes there
	s := newSitemapServer(t, false)
	skips := filepath.Join(t.TempDir(), "skipped.jsonl")
	code, stdout, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--delay", "1ms", "--since", "2026-01-01",
		"--skiplog", skips, "--progress", "never", s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var rows []inventory.Row
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var r inventory.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		var again bytes.Buffer
		enc := json.NewEncoder(&again)
		enc.SetEscapeHTML(false)
		enc.Encode(r)
		if strings.TrimSpace(again.String()) != sc.Text() {
			t.Errorf("round trip changed the row:\n %s\n %s", sc.Text(), again.String())
		}
		rows = append(rows, r)
	}
	// --since drops /c (lastmod 2024-12-31) into the skip log.
	if len(rows) != 2 || rows[0].URL != s.URL+"/a" || rows[0].Priority != "0.8" || !rows[0].Allowed ||
		rows[1].URL != s.URL+"/b" || rows[1].Allowed || rows[1].Line != 2 || rows[1].Rule != "Disallow: /b" {
		t.Errorf("rows %+v", rows)
	}
	if !strings.Contains(stderr, "listed in a sitemap but disallowed by robots.txt: 1") || !strings.Contains(stderr, "filtered: 1") {
		t.Errorf("the summary should be on stderr when rows are on stdout:\n%s", stderr)
	}
	log, err := os.ReadFile(skips)
	if err != nil || !strings.Contains(string(log), `"reason":"sitemap-filter"`) || !strings.Contains(string(log), "lastmod 2024-12-31 is before 2026-01-01") {
		t.Errorf("skip log %s (%v)", log, err)
	}
}

func TestInventoryIncompleteExitsOne(t *testing.T) {
	t.Chdir(t.TempDir()) // the default skip log, skipped.jsonl, goes there
	s := newSitemapServer(t, true)
	code, _, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never", "--format", "csv", s.URL+"/")
	if code != 1 || !strings.Contains(stderr, "gone.xml: not read: sitemap") {
		t.Errorf("exit %d, want 1 with the unreadable sitemap in the summary:\n%s", code, stderr)
	}
}

func TestCrawlSitemapsOnly(t *testing.T) {
	s := newSitemapServer(t, false)
	dir := t.TempDir()
	code, stdout, stderr := runHeed(t, "crawl", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never",
		"--skiplog", filepath.Join(dir, "skipped.jsonl"), "--sitemaps-only", s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	pages := map[string]int{}
	for _, p := range s.requested() {
		if !strings.HasSuffix(p, ".xml") && p != "/robots.txt" {
			pages[p]++
		}
	}
	// /a and /c are listed and allowed; /b is disallowed; / (the seed) and
	// /d (linked from the pages) are not listed.
	if len(pages) != 2 || pages["/a"] != 1 || pages["/c"] != 1 {
		t.Errorf("pages fetched %v, want /a and /c once each", pages)
	}
	if !strings.Contains(stdout, "sitemaps: 3 queued (1 /sitemap.xml probes not needed), 2 read") {
		t.Errorf("crawl summary lacks the sitemap line:\n%s", stdout)
	}

	// --sitemap alone is enough, and --sitemaps beside link following
	// reads the same sitemaps.
	s2 := newSitemapServer(t, false)
	code, stdout, _ = runHeed(t, "crawl", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never",
		"--skiplog", filepath.Join(dir, "skipped2.jsonl"), "--sitemap", s2.URL+"/one.xml")
	if code != 0 || !strings.Contains(stdout, "sitemaps: 1 queued, 1 read") {
		t.Errorf("crawl --sitemap: exit %d\n%s", code, stdout)
	}
}

package cli

import (
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
	"sync/atomic"
	"testing"
	"time"
)

// auditSite serves robots.txt with groups for Googlebot and GPTBot and a
// sitemap whose lastmods are a date, a time with an offset, missing and
// not a date. It counts robots.txt fetches; hold, when not nil, holds the
// sitemap until it is closed.
func auditSite(t *testing.T, hold chan struct{}) (*httptest.Server, *atomic.Int32) {
	var robotsFetches atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			robotsFetches.Add(1)
			fmt.Fprint(w, "User-agent: Googlebot\nDisallow: /g/\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /all/\nSitemap: "+base+"/sitemap.xml\n")
		case "/sitemap.xml":
			if hold != nil {
				select {
				case <-hold:
				case <-time.After(30 * time.Second):
				}
			}
			fmt.Fprint(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
				`<url><loc>`+base+`/page</loc><lastmod>2025-01-01</lastmod></url>`+
				`<url><loc>`+base+`/g/page</loc><lastmod>2025-01-02T08:00:00+02:00</lastmod></url>`+
				`<url><loc>`+base+`/all/page</loc></url>`+
				`<url><loc>`+base+`/old</loc><lastmod>last tuesday</lastmod></url>`+
				`<url><loc>`+base+`/older</loc><lastmod>2019-06-30T23:30:00-01:00</lastmod></url>`+
				`</urlset>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s, &robotsFetches
}

// TestInventoryAgents: each --agent gets its verdict column with its
// deciding rule, in CSV and JSON, from one robots.txt fetch; lastmod is
// normalised to RFC 3339 UTC beside the value as written, an invalid one
// is reported, and the summary has the lastmod statistics.
func TestInventoryAgents(t *testing.T) {
	s, fetches := auditSite(t, nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "audit.csv")
	code, stdout, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--agent", "Googlebot", "--agent", "GPTBot",
		"--delay", "0", "--progress", "never", "--skiplog", "", "--out", out, s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times for three agents", n)
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
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	for _, c := range []string{"HeedBot", "HeedBot rule", "Googlebot", "Googlebot rule", "GPTBot", "GPTBot rule", "lastmod", "lastmod_raw"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("no column %q in %q", c, recs[0])
		}
	}
	type want struct{ heed, google, googleRule, gpt, gptRule, lastmod, raw string }
	wants := map[string]want{
		"/page":     {"allowed", "allowed", "", "robots-disallow", "line 5: Disallow: / (group GPTBot)", "2025-01-01T00:00:00Z", "2025-01-01"},
		"/g/page":   {"allowed", "robots-disallow", "line 2: Disallow: /g/ (group Googlebot)", "robots-disallow", "line 5: Disallow: / (group GPTBot)", "2025-01-02T06:00:00Z", "2025-01-02T08:00:00+02:00"},
		"/all/page": {"robots-disallow", "allowed", "", "robots-disallow", "line 5: Disallow: / (group GPTBot)", "", ""},
		"/old":      {"allowed", "allowed", "", "robots-disallow", "line 5: Disallow: / (group GPTBot)", "", "last tuesday"},
		"/older":    {"allowed", "allowed", "", "robots-disallow", "line 5: Disallow: / (group GPTBot)", "2019-07-01T00:30:00Z", "2019-06-30T23:30:00-01:00"},
	}
	if len(recs) != len(wants)+1 {
		t.Errorf("%d rows, want %d", len(recs)-1, len(wants))
	}
	for _, r := range recs[1:] {
		path := strings.TrimPrefix(r[col["url"]], s.URL)
		w, ok := wants[path]
		got := want{r[col["HeedBot"]], r[col["Googlebot"]], r[col["Googlebot rule"]], r[col["GPTBot"]], r[col["GPTBot rule"]], r[col["lastmod"]], r[col["lastmod_raw"]]}
		if !ok || got != w {
			t.Errorf("%s:\n got  %+v\n want %+v", path, got, w)
		}
	}
	for _, line := range []string{
		"lastmod: 3 dated, oldest 2019-07-01T00:30:00Z, newest 2025-01-02T06:00:00Z; by year 2019=1 2025=2; 1 without, 1 invalid",
		"agent HeedBot: 4 allowed, 1 disallowed by robots.txt",
		"agent Googlebot: 4 allowed, 1 disallowed by robots.txt",
		"agent GPTBot: 0 allowed, 5 disallowed by robots.txt",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("no %q in the summary\n%s", line, stdout)
		}
	}

	// JSON Lines: the same verdicts under "agents".
	code, stdout, stderr = runHeed(t, "inventory", "--agent", "HeedBot", "--agent", "Googlebot", "--agent", "gptbot", "--agent", "GPTBot",
		"--delay", "0", "--progress", "never", "--skiplog", "", s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	type verdict struct {
		Agent   string `json:"agent"`
		Allowed bool   `json:"allowed"`
		Line    int    `json:"line"`
		Rule    string `json:"rule"`
	}
	type jsonRow struct {
		URL            string    `json:"url"`
		LastMod        string    `json:"lastmod"`
		LastModRaw     string    `json:"lastmod_raw"`
		LastModInvalid bool      `json:"lastmod_invalid"`
		Agents         []verdict `json:"agents"`
	}
	seen := 0
	var row jsonRow
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		row = jsonRow{}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		seen++
		if len(row.Agents) != 3 { // gptbot and GPTBot are one token
			t.Fatalf("%s: agents %+v", row.URL, row.Agents)
		}
		switch strings.TrimPrefix(row.URL, s.URL) {
		case "/g/page":
			if g := row.Agents[1]; g.Agent != "Googlebot" || g.Allowed || g.Line != 2 || g.Rule != "Disallow: /g/" {
				t.Errorf("Googlebot on /g/page: %+v", g)
			}
		case "/old":
			if !row.LastModInvalid || row.LastModRaw != "last tuesday" || row.LastMod != "" {
				t.Errorf("/old: %+v", row)
			}
		}
	}
	if seen != 5 {
		t.Errorf("%d JSON rows", seen)
	}
}

// TestInventorySharedFlags: --config, --include/--exclude, --concurrency
// and --metrics as crawl has them; --skiplog's default is crawl's; no
// line points to a skip log when there is none.
func TestInventorySharedFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	hold := make(chan struct{})
	s, _ := auditSite(t, hold)
	cfg := filepath.Join(t.TempDir(), "inventory.yaml")
	writeFile(t, cfg, "urls: ["+s.URL+"/]\nagent: [HeedBot, Googlebot]\ndelay: 0s\nconcurrency: 2\nexclude: ['/old']\nskiplog: \"\"\nprogress: never\n")
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"inventory", "--config", cfg, "--include", "page|old", "--metrics", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	var addr string
	for i := 0; i < 3000 && addr == ""; i++ {
		if m := regexp.MustCompile(`metrics: http://(\S+)/metrics`).FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(time.Millisecond)
	}
	var body []byte
	if addr != "" {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	}
	close(hold)
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{`heed_inventory_urls_total{agent="HeedBot"} 0`, "heed_build_info{"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("no %q in the inventory's metrics\n%s", want, body)
		}
	}
	out := stdout.String()
	// --include keeps /page, /g/page, /all/page, /old and drops /older;
	// the file's exclude drops /old.
	if n := strings.Count(out, `"url":`); n != 3 || strings.Contains(out, s.URL+"/old") {
		t.Errorf("%d rows\n%s", n, out)
	}
	// The rows are on stdout, so the summary is on stderr.
	if sum := stderr.String(); !strings.Contains(sum, "filtered: 2 entries (sitemap filters)") || strings.Contains(sum, "skip log") {
		t.Errorf("the summary points to a skip log there is none of:\n%s", sum)
	}
	if _, err := os.Stat(defaultSkipLog); !os.IsNotExist(err) {
		t.Errorf("a skip log was written: %v", err)
	}

	if code, _, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--concurrency", "0", s.URL+"/"); code != 2 || !strings.Contains(stderr, "--concurrency 0") {
		t.Errorf("--concurrency 0: exit %d %s", code, stderr)
	}
	if code, _, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--include", "(", s.URL+"/"); code != 2 || !strings.Contains(stderr, "bad pattern") {
		t.Errorf("--include (: exit %d %s", code, stderr)
	}
	if code, _, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--agent", "Bad Bot", s.URL+"/"); code != 2 || !strings.Contains(stderr, "Bad Bot") {
		t.Errorf("--agent 'Bad Bot': exit %d %s", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "agent: HeedBot\nconcurrency: 0\n")
	if code, _, stderr := runHeed(t, "inventory", "--config", bad, s.URL+"/"); code != 2 || !strings.Contains(stderr, "line 2") {
		t.Errorf("--config with concurrency 0: exit %d %s", code, stderr)
	}
}

// TestSharedFlagDefaults: the flags crawl and inventory share have one
// declaration: the same default and help in both.
func TestSharedFlagDefaults(t *testing.T) {
	a := New("heed")
	crawl, inv := a.crawlCommand(), a.inventoryCommand()
	for _, name := range []string{"skiplog", "config", "concurrency", "include", "exclude", "metrics", "delay", "timeout", "progress"} {
		c, i := crawl.Flags().Lookup(name), inv.Flags().Lookup(name)
		if c == nil || i == nil {
			t.Errorf("--%s: crawl %v, inventory %v", name, c != nil, i != nil)
			continue
		}
		if c.DefValue != i.DefValue || c.Value.Type() != i.Value.Type() {
			t.Errorf("--%s: crawl default %q (%s), inventory %q (%s)", name, c.DefValue, c.Value.Type(), i.DefValue, i.Value.Type())
		}
	}
}

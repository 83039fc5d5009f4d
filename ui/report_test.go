package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/inventory"
)

// sitemapSite serves a robots.txt with two sitemaps that share a URL, one
// URL listed but disallowed, a hostile URL, and lastmods over three
// months.
func sitemapSite(t *testing.T) *httptest.Server {
	t.Helper()
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nSitemap: %s/a.xml\nSitemap: %s/b.xml\n\nUser-agent: GPTBot\nDisallow: /t\n", ts.URL, ts.URL)
		case "/a.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>%[1]s/one</loc><lastmod>2025-01-05</lastmod></url>
<url><loc>%[1]s/two</loc><lastmod>2025-02-01T10:00:00+00:00</lastmod></url>
<url><loc>%[1]s/private/secret</loc><lastmod>2025-02-03</lastmod></url>
<url><loc>%[1]s/private/?q=&lt;script&gt;alert(1)&lt;/script&gt;</loc><lastmod>not a date</lastmod></url>
</urlset>`, ts.URL)
		case "/b.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>%[1]s/one</loc><lastmod>2025-03-01</lastmod></url>
<url><loc>%[1]s/three</loc></url>
</urlset>`, ts.URL)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// writeReport runs an inventory of site for agents (HeedBot when none)
// and writes its report to a file.
func writeReport(t *testing.T, site string, path string, agents ...string) *inventory.Summary {
	t.Helper()
	if len(agents) == 0 {
		agents = []string{"HeedBot"}
	}
	inv, err := inventory.NewForAgents(agents, crawler.WithDelay(0), crawler.WithSkipLog(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	rep := NewInventoryReport(inv.Agents()...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := inv.Run(ctx, []string{site}, func(r inventory.Row) error { rep.Add(r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestInventoryReport(t *testing.T) {
	site := sitemapSite(t)
	path := filepath.Join(t.TempDir(), "inventory.html")
	sum := writeReport(t, site.URL, path)
	b, _ := os.ReadFile(path)
	html := string(b)
	if sum.URLs != 6 || sum.Disallowed != 2 || sum.CrossDuplicates != 1 {
		t.Fatalf("summary: %d URLs, %d disallowed, %d cross duplicates", sum.URLs, sum.Disallowed, sum.CrossDuplicates)
	}
	for _, want := range []string{
		`<style>`, `id="n-urls">6<`, `id="n-disallowed">2<`, `id="n-cross">1<`,
		site.URL + `/private/secret`, `line 2: <code>Disallow: /private/</code>`,
		`<table id="duplicates">`, site.URL + `/a.xml`, site.URL + `/b.xml`,
		`2025-01: 1`, `2025-02: 2`, `2025-03: 1`, `(1 without one, 1 unreadable)`,
		`alert(1)`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	// Self-contained: nothing to load from anywhere.
	for _, bad := range []string{"<script", `src="`, `href="http`, `<link`, "@import", "url("} {
		if strings.Contains(html, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
}

// A report of several agents names them all, counts each one's verdicts
// and lists the URLs any of them may not fetch, with every agent's
// verdict and deciding rule.
func TestInventoryReportAgents(t *testing.T) {
	site := sitemapSite(t)
	path := filepath.Join(t.TempDir(), "inventory.html")
	sum := writeReport(t, site.URL, path, "HeedBot", "GPTBot", "Bingbot")
	b, _ := os.ReadFile(path)
	html := string(b)
	if len(sum.Agents) != 3 || sum.Agents[1].Disallowed != 2 {
		t.Fatalf("summary agents: %+v", sum.Agents)
	}
	for _, want := range []string{
		`Sitemap inventory for <code>HeedBot</code>, <code>GPTBot</code>, <code>Bingbot</code>`,
		`for the product tokens <code>HeedBot</code>, <code>GPTBot</code>, <code>Bingbot</code>`,
		`<table id="agents">`, `<tr><td><code>GPTBot</code></td><td class="num">4</td><td class="num">2</td></tr>`,
		`<tr><td><code>Bingbot</code></td><td class="num">4</td><td class="num">2</td></tr>`,
		`<th scope="col"><code>GPTBot</code></th>`,
		// /two: allowed for HeedBot and Bingbot, refused GPTBot by its own group.
		`<tr><td><code>` + site.URL + `/two</code></td><td>allowed</td><td>robots-disallow<br><code>line 7: Disallow: /t (group GPTBot)</code></td><td>allowed</td>`,
		`<td>robots-disallow<br><code>line 2: Disallow: /private/ (group *)</code></td><td>allowed</td><td>robots-disallow<br><code>line 2: Disallow: /private/ (group *)</code></td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	// Refused to some agent: the two /private/ URLs (HeedBot, Bingbot),
	// /two and /three (GPTBot).
	table, _, _ := strings.Cut(html[strings.Index(html, `<table id="disallowed">`)+1:], `</table>`)
	if n := strings.Count(table, `<tr><td><code>`+site.URL); n != 4 {
		t.Errorf("%d URLs listed as refused to some agent, want 4", n)
	}
}

func TestParseLastMod(t *testing.T) {
	for _, s := range []string{"2025", "2025-01", "2025-01-02", "2025-01-02T03:04Z", "2025-01-02T03:04:05+02:00", "2025-01-02T03:04:05.123Z"} {
		if _, ok := parseLastMod(s); !ok {
			t.Errorf("%q not read", s)
		}
	}
	for _, s := range []string{"", "yesterday", "2025-13-01", "01/02/2025"} {
		if _, ok := parseLastMod(s); ok {
			t.Errorf("%q read", s)
		}
	}
}

package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/ui"
)

var pagesAt = regexp.MustCompile(`pages on (http://[^/\s]+)`)

// waitAddr waits for the line saying where the pages are.
func waitAddr(t *testing.T, stderr *syncBuffer, done <-chan int) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := pagesAt.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("exited %d before serving: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no address said: %s", stderr.String())
	return ""
}

func getBody(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func TestUICommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "--addr", "127.0.0.1:0", "--agent", "ExampleBot"}, &stdout, &stderr)
	}()
	base := waitAddr(t, &stderr, done)
	code, ctype, body := getBody(t, base+"/robots")
	if code != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, `value="ExampleBot"`) {
		t.Fatalf("/robots: %d %s", code, ctype)
	}
	if code, _, _ := getBody(t, base+"/live"); code != http.StatusNotFound {
		t.Fatalf("/live without a crawl: %d", code)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after interrupt: %s", code, stderr.String())
	}
	for _, args := range [][]string{
		{"ui", "--redis", "redis://127.0.0.1:1/0"},
		{"ui", "--crawl-id", "x"},
		{"ui", "--state", filepath.Join(t.TempDir(), "missing")},
		{"ui", "--addr", "nonsense"},
		{"ui", "extra"},
	} {
		if code, _, errs := runHeed(t, args...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}

// TestCrawlUI crawls with --ui and reads the live view while the crawl
// runs.
func TestCrawlUI(t *testing.T) {
	t.Chdir(t.TempDir())
	site := startSite(t, testweb.Generated{Hosts: 2, PagesPerHost: 10, PageBytes: 512, LinksPerPage: 2, CrawlDelay: 0.2, Seed: 9})
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	args := append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--ui", "127.0.0.1:0"}, siteArgs(site)...)
	go func() { done <- run(context.Background(), args, &stdout, &stderr) }()
	base := waitAddr(t, &stderr, done)
	var v ui.LiveView
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		code, ctype, body := getBody(t, base+"/api/live")
		if code != 200 || ctype != "application/json" {
			t.Fatalf("/api/live: %d %s", code, ctype)
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		if v.Pages >= 2 && len(v.Authorities) == 2 && len(v.Authorities[0].Starts) >= 2 {
			break
		}
	}
	if v.Pages < 2 || len(v.Authorities) != 2 || len(v.Authorities[0].Starts) < 2 || v.Authorities[0].MinGap < 0.2 {
		t.Fatalf("live view during the crawl: %+v", v)
	}
	if code := <-done; code != 0 {
		t.Fatalf("crawl exit %d: %s", code, stderr.String())
	}
	if _, err := http.Get(base + "/api/live"); err == nil {
		t.Fatal("the pages outlived the crawl")
	}
}

func TestInventoryHTML(t *testing.T) {
	t.Chdir(t.TempDir())
	s := newSitemapServer(t, false)
	out := filepath.Join(t.TempDir(), "inventory.html")
	code, stdout, stderr := runHeed(t, "inventory", "--agent", "HeedBot", "--delay", "1ms", "--progress", "never", "--out", out, s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"<!doctype html>", "Sitemap inventory", `id="n-urls">3<`, `id="n-disallowed">1<`, "Disallow: /b"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	if code, _, errs := runHeed(t, "inventory", "--agent", "HeedBot", "--format", "pdf", s.URL+"/"); code != 2 {
		t.Errorf("--format pdf: exit %d %s", code, errs)
	}
}

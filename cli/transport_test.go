package cli

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/pages"
)

// site is a test site: robots.txt allowing all, / linking to /b and
// /big, /big of 5000 bytes, /flaky always 500. It records every request:
// path, the absolute URL a proxy is asked for, and the headers.
type site struct {
	mu   sync.Mutex
	seen []*http.Request
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Clone(r.Context()))
	s.mu.Unlock()
	switch r.URL.Path {
	case "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	case "/":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>home</title><a href="/b">b</a> <a href="/big">big</a> <a href="/flaky">flaky</a>`)
	case "/big":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>big</title>"+strings.Repeat("x", 5000))
	case "/flaky":
		http.Error(w, "try again", http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>b</title>")
	}
}

// requests returns the requests the site saw for path.
func (s *site) requests(path string) []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*http.Request
	for _, r := range s.seen {
		if r.URL.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// crawlArgs are a quick crawl's arguments, writing items to dir; no
// retries unless extra asks (a 5xx also pauses its host, 1 s doubling).
func crawlArgs(dir string, extra ...string) []string {
	return append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--retries", "0",
		"--skiplog", filepath.Join(dir, "skipped.jsonl"), "--out", filepath.Join(dir, "items.jsonl")}, extra...)
}

// readPages reads a feed of pages.Page items by URL.
func readPages(t *testing.T, path string) map[string]pages.Page {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]pages.Page{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var p pages.Page
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out[p.URL] = p
	}
	return out
}

// writeCA writes the TLS server's certificate as a PEM file.
func writeCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCAFileAndInsecureReachTLSSite: a site whose certificate no system
// root signs is unreachable by default, crawled with --ca-file, and with
// --insecure-skip-verify, which is said on stderr and in the summary.
func TestCAFileAndInsecureReachTLSSite(t *testing.T) {
	s := &site{}
	srv := httptest.NewTLSServer(s)
	defer srv.Close()
	ca := writeCA(t, srv)

	// Without: the robots.txt fetch fails on the certificate.
	code, out, _ := runHeed(t, "robots", "check", "--agent", "HeedBot", srv.URL+"/b")
	if code != 1 || !strings.Contains(out, "certificate") {
		t.Fatalf("robots check without --ca-file: exit %d\n%s", code, out)
	}
	code, out, errOut := runHeed(t, "robots", "check", "--agent", "HeedBot", "--ca-file", ca, srv.URL+"/b")
	if code != 0 || !strings.Contains(out, "ALLOWED") {
		t.Fatalf("robots check --ca-file: exit %d\n%s%s", code, out, errOut)
	}

	for _, flag := range [][]string{{"--ca-file", ca}, {"--insecure-skip-verify"}} {
		t.Run(flag[0], func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runHeed(t, append(crawlArgs(dir, flag...), srv.URL+"/")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			pages := readPages(t, filepath.Join(dir, "items.jsonl"))
			if _, ok := pages[srv.URL+"/b"]; !ok {
				t.Errorf("page /b not crawled: %v\n%s", pages, out)
			}
			insecure := flag[0] == "--insecure-skip-verify"
			if strings.Contains(errOut, insecureWarning) != insecure || strings.Contains(out, insecureWarning) != insecure {
				t.Errorf("the warning on stderr and in the summary: want %v\nstdout:\n%s\nstderr:\n%s", insecure, out, errOut)
			}
		})
	}
	code, _, errOut = runHeed(t, append(crawlArgs(t.TempDir(), "--ca-file", ca, "--insecure-skip-verify"), srv.URL+"/")...)
	if code != 2 || !strings.Contains(errOut, "choose one") {
		t.Errorf("--ca-file with --insecure-skip-verify: exit %d %s", code, errOut)
	}
	notPEM := filepath.Join(t.TempDir(), "x.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o644)
	code, _, errOut = runHeed(t, append(crawlArgs(t.TempDir(), "--ca-file", notPEM), srv.URL+"/")...)
	if code != 2 || !strings.Contains(errOut, "--ca-file") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("--ca-file of no certificate: exit %d %q", code, errOut)
	}
}

// TestHeaderReachesEveryRequest: -H and --header go with robots.txt and
// every page of a crawl, and with robots check's fetch.
func TestHeaderReachesEveryRequest(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	code, out, errOut := runHeed(t, append(crawlArgs(dir, "-H", "X-Token: abc", "--header", "Accept-Language:fr"), srv.URL+"/")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, path := range []string{"/robots.txt", "/", "/b", "/big"} {
		rs := s.requests(path)
		if len(rs) == 0 {
			t.Errorf("%s never requested", path)
		}
		for _, r := range rs {
			if r.Header.Get("X-Token") != "abc" || r.Header.Get("Accept-Language") != "fr" || !strings.Contains(r.UserAgent(), "HeedBot") {
				t.Errorf("%s: headers %v", path, r.Header)
			}
		}
	}
	before := len(s.requests("/robots.txt"))
	if code, out, _ := runHeed(t, "robots", "check", "--agent", "HeedBot", "-H", "X-Token: check", srv.URL+"/b"); code != 0 {
		t.Fatalf("robots check: exit %d %s", code, out)
	}
	if rs := s.requests("/robots.txt"); len(rs) != before+1 || rs[before].Header.Get("X-Token") != "check" {
		t.Errorf("robots check did not send the header")
	}
}

// TestHeaderRefused: a header that would override the User-Agent the
// robots.txt group is matched against, or smuggle a line, is a usage
// error naming --header, and nothing is written.
func TestHeaderRefused(t *testing.T) {
	for _, h := range []string{"User-Agent: OtherBot", "user-agent:HeedBot", "X-A: 1\r\nX-B: 2", "X-A: 1\nX-B: 2", "no colon", ": empty", "Host: example.com"} {
		dir := t.TempDir()
		code, _, errOut := runHeed(t, append(crawlArgs(dir, "--header", h), "http://127.0.0.1:1/")...)
		if code != 2 || !strings.Contains(errOut, "--header") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("--header %q: exit %d, stderr %q", h, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "skipped.jsonl")); err == nil {
			t.Errorf("--header %q: the skip log was created", h)
		}
	}
	_, _, errOut := runHeed(t, append(crawlArgs(t.TempDir(), "--header", "User-Agent: OtherBot"), "http://127.0.0.1:1/")...)
	if !strings.Contains(errOut, "--user-agent") {
		t.Errorf("refusing a User-Agent header does not point to --user-agent: %s", errOut)
	}
}

// TestProxySeesEveryRequest: with --proxy every request of the crawl,
// robots.txt included, goes to the proxy. The site's host does not
// exist: only the proxy can answer for it.
func TestProxySeesEveryRequest(t *testing.T) {
	proxy := &site{} // answers as the origin would, for any host
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	dir := t.TempDir()
	code, out, errOut := runHeed(t, append(crawlArgs(dir, "--proxy", srv.URL), "http://shop.invalid/")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, path := range []string{"/robots.txt", "/", "/b", "/big"} {
		rs := proxy.requests(path)
		if len(rs) != 1 || rs[0].URL.Host != "shop.invalid" || !rs[0].URL.IsAbs() {
			t.Errorf("%s: the proxy saw %d requests (%v); want one for http://shop.invalid%s", path, len(rs), rs, path)
		}
	}
	if pages := readPages(t, filepath.Join(dir, "items.jsonl")); len(pages) != 3 {
		t.Errorf("items %v", pages)
	}
	for _, p := range []string{"ftp://127.0.0.1:1", "127.0.0.1:8080", "http://"} {
		if code, _, errOut := runHeed(t, append(crawlArgs(t.TempDir(), "--proxy", p), "http://shop.invalid/")...); code != 2 || !strings.Contains(errOut, "--proxy") {
			t.Errorf("--proxy %q: exit %d %s", p, code, errOut)
		}
	}
}

// TestMaxBodyCutsAndRecords: --max-body cuts a page, which the summary
// counts and the item marks; a bad size is a usage error.
func TestMaxBodyCutsAndRecords(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	code, out, errOut := runHeed(t, append(crawlArgs(dir, "--max-body", "1KiB"), srv.URL+"/")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	pages := readPages(t, filepath.Join(dir, "items.jsonl"))
	big, small := pages[srv.URL+"/big"], pages[srv.URL+"/b"]
	if !big.Truncated || big.Bytes != 1024 || small.Truncated {
		t.Errorf("/big truncated %v, %d bytes; /b truncated %v", big.Truncated, big.Bytes, small.Truncated)
	}
	if !strings.Contains(out, "cut at the body limit: 1 pages") {
		t.Errorf("summary does not count the cut page:\n%s", out)
	}
	for _, v := range []string{"0", "lots", "-1KiB"} {
		if code, _, errOut := runHeed(t, append(crawlArgs(t.TempDir(), "--max-body", v), srv.URL+"/")...); code != 2 || !strings.Contains(errOut, "max-body") {
			t.Errorf("--max-body %s: exit %d %s", v, code, errOut)
		}
	}
}

// TestRetriesCounted: a URL that always fails is asked 1 + --retries
// times.
func TestRetriesCounted(t *testing.T) {
	for _, n := range []int{0, 2} {
		s := &site{}
		srv := httptest.NewServer(s)
		code, out, errOut := runHeed(t, append(crawlArgs(t.TempDir(), "--retries", fmt.Sprint(n), "--retry-wait", "1ms"), srv.URL+"/")...)
		srv.Close()
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		if got := len(s.requests("/flaky")); got != n+1 {
			t.Errorf("--retries %d: /flaky asked %d times, want %d", n, got, n+1)
		}
		if !strings.Contains(out, "500=1") {
			t.Errorf("--retries %d: the final 500 is not in the summary:\n%s", n, out)
		}
	}
	if code, _, errOut := runHeed(t, append(crawlArgs(t.TempDir(), "--retries", "-1"), "http://127.0.0.1:1/")...); code != 2 || !strings.Contains(errOut, "--retries") {
		t.Errorf("--retries -1: exit %d %s", code, errOut)
	}
}

// TestTransportKeysInConfig: the transport settings are --config keys
// too, and a bad value names its line.
func TestTransportKeysInConfig(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(cfg, []byte("header:\n  - \"X-Token: cfg\"\nmax-body: 2KiB\nretries: 1\nretry-wait: 1ms\nurls: ["+srv.URL+"/]\n"), 0o644)
	cfgArgs := func(dir string) []string {
		return []string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--config", cfg,
			"--skiplog", filepath.Join(dir, "skipped.jsonl"), "--out", filepath.Join(dir, "items.jsonl")}
	}
	code, out, errOut := runHeed(t, cfgArgs(dir)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if rs := s.requests("/"); len(rs) != 1 || rs[0].Header.Get("X-Token") != "cfg" {
		t.Errorf("the config's header was not sent")
	}
	if n := len(s.requests("/flaky")); n != 2 {
		t.Errorf("/flaky asked %d times, want 2 (retries: 1)", n)
	}
	if p := readPages(t, filepath.Join(dir, "items.jsonl"))[srv.URL+"/big"]; !p.Truncated || p.Bytes != 2048 {
		t.Errorf("max-body: 2KiB gave %+v", p)
	}
	for body, want := range map[string]string{
		"delay: 0s\nmax-body: lots\n":        "line 2: max-body",
		"retries: -1\n":                      "line 1: retries",
		"header: [\"User-Agent: x\"]\n":      "line 1: header",
		"retries: 1\nproxy: \"ftp://x:1\"\n": "line 2: proxy",
		"insecure-skip-verify: maybe\n":      "line 1: insecure-skip-verify",
	} {
		os.WriteFile(cfg, []byte(body+"urls: ["+srv.URL+"/]\n"), 0o644)
		code, _, errOut := runHeed(t, cfgArgs(t.TempDir())...)
		if code != 2 || !strings.Contains(errOut, want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want one line naming %q", body, code, errOut, want)
		}
	}
}

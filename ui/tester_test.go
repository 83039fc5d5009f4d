package ui

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func newServer(t *testing.T, opts ...Option) *httptest.Server {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	ts.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return ts
}

// get fetches path and checks the status and content type.
func get(t *testing.T, ts *httptest.Server, path string, code int, ctype string) string {
	t.Helper()
	resp, err := ts.Client().Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	return check(t, resp, code, ctype)
}

func check(t *testing.T, resp *http.Response, code int, ctype string) string {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != code {
		t.Fatalf("%s: status %d, want %d: %s", resp.Request.URL, resp.StatusCode, code, b)
	}
	if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, ctype) {
		t.Fatalf("%s: content type %q, want %q", resp.Request.URL, got, ctype)
	}
	return string(b)
}

func postForm(t *testing.T, ts *httptest.Server, v url.Values, code int) string {
	t.Helper()
	resp, err := ts.Client().PostForm(ts.URL+"/robots", v)
	if err != nil {
		t.Fatal(err)
	}
	return check(t, resp, code, "text/html; charset=utf-8")
}

func postJSON(t *testing.T, ts *httptest.Server, req any, code int) *TesterResult {
	t.Helper()
	b, _ := json.Marshal(req)
	resp, err := ts.Client().Post(ts.URL+"/api/robots", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	body := check(t, resp, code, "application/json")
	var res TesterResult
	if code == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &res); err != nil {
			t.Fatal(err)
		}
	}
	return &res
}

const hostile = `User-agent: *
Disallow: /private/
Disallow: /<script>alert(1)</script>

User-agent: HeedBot
Allow: /private/open
Disallow: /private/
Disallow: /fish*
`

func TestTesterPage(t *testing.T) {
	ts := newServer(t)
	body := get(t, ts, "/robots", 200, "text/html; charset=utf-8")
	for _, want := range []string{`<label for="robots">`, `<label for="agent">`, `<label for="urls">`, `<label for="robots_url">`, `value="HeedBot"`} {
		if !strings.Contains(body, want) {
			t.Errorf("form lacks %s", want)
		}
	}
	get(t, ts, "/", 302, "text/html")
	get(t, ts, "/static/style.css", 200, "text/css")
	get(t, ts, "/static/live.js", 200, "text/javascript")
	get(t, ts, "/nothing", 404, "text/plain")
}

func TestTesterMarksTheDecidingLines(t *testing.T) {
	ts := newServer(t)
	body := postForm(t, ts, url.Values{
		"robots": {hostile},
		"agent":  {"heedbot"},
		"urls":   {"/private/open\n/private/x?<b>=1\nhttps://example.com/fish.html\n/elsewhere\n/robots.txt\n"},
	}, 200)
	// The named group (lines 5-8) applies; the * lines do not.
	for _, want := range []string{
		`id="L5" class="line group has-finding"`,
		`id="L6" class="line group decides-a"`,
		`id="L7" class="line group decides-d has-finding"`,
		`id="L8" class="line group decides-d has-finding"`,
		`id="L2" class="line has-finding"`,
		`named-group-drops-star-rules`,
		`<a href="#u2">URL 2</a>`,
		`redundant-trailing-wildcard`,
		// Hostile text is text.
		`/&lt;script&gt;alert(1)&lt;/script&gt;`,
		`/private/x?&lt;b&gt;=1`,
		`/robots.txt is always allowed`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if testing.Verbose() {
		t.Log(body)
	}
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<b>=1") {
		t.Fatal("hostile text reached the page as markup")
	}
}

func TestTesterAPI(t *testing.T) {
	ts := newServer(t)
	res := postJSON(t, ts, TesterRequest{Robots: hostile, Agent: "OtherBot", URLs: []string{"/private/open", "/a", "/ok", "%zz"}}, 200)
	if res.State != "available" || res.Status != 200 || res.Group != `user-agent "*" (line 1)` {
		t.Fatalf("result %+v", res)
	}
	if g := res.GroupLines; len(g) != 3 || g[0] != 1 || g[2] != 3 {
		t.Fatalf("group lines %v", g)
	}
	v := res.Verdicts
	if len(v) != 4 || v[0].Allowed || v[0].Line != 2 || v[0].Reason != "robots-disallow" || !v[2].Allowed || v[2].Line != 0 || v[3].Error == "" {
		t.Fatalf("verdicts %+v", v)
	}
	if len(res.Findings) == 0 {
		t.Fatal("no lint findings")
	}
	for _, bad := range []TesterRequest{
		{Robots: hostile, Agent: "Heed Bot", URLs: []string{"/"}},
		{Robots: hostile, RobotsURL: "http://a/", Agent: "a", URLs: []string{"/"}},
		{RobotsURL: "file:///etc/passwd", Agent: "a", URLs: []string{"/"}},
		{RobotsURL: "ftp://example.com/robots.txt", Agent: "a", URLs: []string{"/"}},
		{RobotsURL: "javascript:alert(1)", Agent: "a", URLs: []string{"/"}},
		{Robots: "x", Agent: "a", URLs: make([]string, MaxURLs+1)},
	} {
		if bad.URLs[0] == "" {
			for i := range bad.URLs {
				bad.URLs[i] = "/x"
			}
		}
		postJSON(t, ts, bad, 400)
	}
	resp, err := ts.Client().Post(ts.URL+"/api/robots", "application/json", strings.NewReader(`{"nope": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, 400, "application/json")
}

// TestTesterFetches fetches robots.txt files with heed's status
// semantics, through the tester's bounds.
func TestTesterFetches(t *testing.T) {
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /no\n")
		case "/hop":
			http.Redirect(w, r, "/robots.txt", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/gone":
			http.NotFound(w, r)
		case "/broken":
			http.Error(w, "down", http.StatusServiceUnavailable)
		case "/ftp":
			http.Redirect(w, r, "ftp://example.com/robots.txt", http.StatusFound)
		case "/huge":
			io.WriteString(w, "User-agent: *\n")
			w.Write(bytes.Repeat([]byte("Disallow: /x\n"), 3*DefaultFetchBytes/13))
		case "/slow":
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(site.Close)
	ts := newServer(t, WithFetchTimeout(300*time.Millisecond))
	for _, tc := range []struct {
		path    string
		state   string
		status  int
		allowed bool
	}{
		{"", "available", 200, false}, // the site's root: its /robots.txt
		{"/hop", "available", 200, false},
		{"/loop", "unavailable", 302, true},
		{"/gone", "unavailable", 404, true},
		{"/broken", "unreachable", 503, false},
		{"/ftp", "unavailable", 302, true},
		{"/slow", "unreachable", 0, false},
		{"/huge", "available", 200, true},
	} {
		res := postJSON(t, ts, TesterRequest{RobotsURL: site.URL + tc.path, Agent: "HeedBot", URLs: []string{"/no"}}, 200)
		if res.State != tc.state || res.Status != tc.status || res.Verdicts[0].Allowed != tc.allowed {
			t.Errorf("%s: state %s status %d allowed %v (%s); want %s %d %v", tc.path, res.State, res.Status, res.Verdicts[0].Allowed, res.Err, tc.state, tc.status, tc.allowed)
		}
		if tc.path == "/huge" && (res.Bytes > DefaultFetchBytes || res.Truncated == nil) {
			t.Errorf("huge: %d bytes read, truncated %+v", res.Bytes, res.Truncated)
		}
		if tc.path == "/hop" && res.Hops != 1 {
			t.Errorf("hop: %d hops", res.Hops)
		}
	}
}

package download_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
)

// seen records what a test server was sent.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (s *seen) add(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r.Clone(context.Background()))
}

func (s *seen) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.reqs {
		out = append(out, r.URL.Path)
	}
	return out
}

func (s *seen) last() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[len(s.reqs)-1]
}

func newDownloader(t *testing.T, cfg download.Config) *download.Downloader {
	t.Helper()
	if cfg.UserAgent == "" {
		cfg.UserAgent = "HeedBot/1.0"
	}
	d, err := download.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func fetch(t *testing.T, d *download.Downloader, req *frontier.Request) *http.Response {
	t.Helper()
	resp, err := d.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", req.URL, err)
	}
	return &http.Response{StatusCode: resp.Status, Header: resp.Header}
}

// TestFetchFollowsNoRedirect: a 3xx comes back as it is, and its target
// is not asked for: every hop is the engine's, through the whole chain.
func TestFetchFollowsNoRedirect(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		http.Redirect(w, r, "/target", http.StatusFound)
	}))
	defer srv.Close()
	d := newDownloader(t, download.Config{})
	resp := fetch(t, d, &frontier.Request{URL: srv.URL + "/from"})
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/target" {
		t.Errorf("status %d, Location %q; want 302 to /target", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := strings.Join(s.paths(), ","); got != "/from" {
		t.Errorf("the server was asked for %s, want /from only", got)
	}
}

// TestFetchSendsTheCrawlersIdentity: a request's own headers, method and
// body go out; its own User-Agent does not (the crawler's does), nor does
// the header that carries the call to the transport.
func TestFetchSendsTheCrawlersIdentity(t *testing.T) {
	var s seen
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(strings.Builder)
		if r.Body != nil {
			buf := make([]byte, 64)
			n, _ := r.Body.Read(buf)
			b.Write(buf[:n])
		}
		body = b.String()
		s.add(r)
	}))
	defer srv.Close()
	d := newDownloader(t, download.Config{UserAgent: "Mozilla/5.0 (compatible; HeedBot/1.0)"})
	h := http.Header{"User-Agent": {"Other/2.0"}, "X-Token": {"t"}, "X-Heed-Call": {"forged"}}
	fetch(t, d, &frontier.Request{URL: srv.URL + "/form", Method: http.MethodPost, Header: h, Body: []byte("a=1")})
	r := s.last()
	if ua := r.Header.Get("User-Agent"); ua != "Mozilla/5.0 (compatible; HeedBot/1.0)" {
		t.Errorf("User-Agent %q sent, want the crawler's", ua)
	}
	if r.Header.Get("X-Token") != "t" || r.Method != http.MethodPost || body != "a=1" {
		t.Errorf("sent %s with X-Token %q and body %q; want POST, t, a=1", r.Method, r.Header.Get("X-Token"), body)
	}
	if v := r.Header.Values("X-Heed-Call"); len(v) != 0 {
		t.Errorf("the call header reached the server: %q", v)
	}
}

// TestCookiesStayWithTheirAuthority: a cookie one authority sets goes
// back to it and to no other (the same host on another port is another
// authority); a preset cookie goes to its authority only; NoCookies keeps
// none.
func TestCookiesStayWithTheirAuthority(t *testing.T) {
	var a, b seen
	srvA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.add(r)
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "a", Path: "/"})
		}
	}))
	defer srvA.Close()
	srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { b.add(r) }))
	defer srvB.Close()
	cookie := func(s *seen, name string) string {
		if c, err := s.last().Cookie(name); err == nil {
			return c.Value
		}
		return ""
	}

	d := newDownloader(t, download.Config{Cookies: []download.Cookies{{URL: " " + srvB.URL + "/ ", Cookies: []*http.Cookie{{Name: "consent", Value: "yes"}}}}})
	fetch(t, d, &frontier.Request{URL: srvA.URL + "/login"})
	fetch(t, d, &frontier.Request{URL: srvA.URL + "/page"})
	fetch(t, d, &frontier.Request{URL: srvB.URL + "/page"})
	if got := cookie(&a, "session"); got != "a" {
		t.Errorf("A's own cookie came back as %q, want a", got)
	}
	if got := cookie(&a, "consent"); got != "" {
		t.Errorf("B's preset cookie reached A: %q", got)
	}
	if got := cookie(&b, "session"); got != "" {
		t.Errorf("A's cookie reached B: %q", got)
	}
	if got := cookie(&b, "consent"); got != "yes" {
		t.Errorf("B's preset cookie sent as %q, want yes", got)
	}

	d = newDownloader(t, download.Config{NoCookies: true})
	fetch(t, d, &frontier.Request{URL: srvA.URL + "/login"})
	fetch(t, d, &frontier.Request{URL: srvA.URL + "/page"})
	if got := cookie(&a, "session"); got != "" {
		t.Errorf("NoCookies sent a cookie back: %q", got)
	}
}

// TestCookieJarIsBounded: a site that sets new cookies on every page
// does not grow its jar, nor every request's Cookie header, past
// MaxCookiesPerAuthority names; a cookie it has already is still updated.
func TestCookieJarIsBounded(t *testing.T) {
	var s seen
	page := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		page++
		http.SetCookie(w, &http.Cookie{Name: "session", Value: fmt.Sprint(page), Path: "/"})
		for i := range 20 {
			http.SetCookie(w, &http.Cookie{Name: fmt.Sprintf("c%d_%d", page, i), Value: "x", Path: "/"})
		}
	}))
	defer srv.Close()
	d := newDownloader(t, download.Config{})
	for range 8 {
		fetch(t, d, &frontier.Request{URL: srv.URL + "/"})
	}
	last := s.last()
	if n := len(last.Cookies()); n != download.MaxCookiesPerAuthority {
		t.Errorf("the 8th request carried %d cookies, want the cap %d", n, download.MaxCookiesPerAuthority)
	}
	if c, err := last.Cookie("session"); err != nil || c.Value != "7" {
		t.Errorf("the session cookie sent as %v (%v), want the 7th page's value", c, err)
	}
}

// TestConfigCheckRefusesCookiesOfNoAuthority: a preset cookie whose URL
// names no authority would be lost; New refuses it.
func TestConfigCheckRefusesCookiesOfNoAuthority(t *testing.T) {
	for _, raw := range []string{"", "not a url", "ftp://example.com/", "/relative", "http://", "http://exa mple.com/"} {
		cfg := download.Config{UserAgent: "HeedBot/1.0", Cookies: []download.Cookies{{URL: raw}}}
		if err := cfg.Check(); err == nil {
			t.Errorf("Check accepts %q", raw)
		}
		if _, err := download.New(cfg); err == nil {
			t.Errorf("New accepts %q", raw)
		}
	}
	cfg := download.Config{Cookies: []download.Cookies{{URL: "https://example.com:8443/"}}}
	if err := cfg.Check(); err != nil {
		t.Errorf("Check refuses an absolute URL: %v", err)
	}
}

// TestStrayVisitIsHandedBack: a callback calling colly's Visit on the
// response sends nothing; Stray receives the URL with the request it was
// found on, so the engine can follow it one level deeper.
func TestStrayVisitIsHandedBack(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.add(r) }))
	defer srv.Close()
	type stray struct {
		parent *frontier.Request
		url    string
	}
	var got []stray
	d := newDownloader(t, download.Config{Stray: func(parent *frontier.Request, rawURL string) {
		got = append(got, stray{parent, rawURL})
	}})
	req := &frontier.Request{URL: srv.URL + "/page", Depth: 3}
	resp, err := d.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	cr := resp.Native.(*colly.Response)
	cr.Request.Visit("/other")
	cr.Request.Post("/posted", map[string]string{"a": "1"})
	if paths := strings.Join(s.paths(), ","); paths != "/page" {
		t.Errorf("the server was asked for %s, want /page only", paths)
	}
	if len(got) != 1 || got[0].parent != req || got[0].url != srv.URL+"/other" {
		t.Fatalf("Stray got %+v, want one call for %s/other from the page's request", got, srv.URL)
	}
}

// TestSitemapsStreamOnTheTransport: a sitemap is not read whole by
// colly but handed on as a stream, with the crawler's User-Agent, also
// when the Config sets no timeout.
func TestSitemapsStreamOnTheTransport(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		w.Write([]byte("<urlset></urlset>"))
	}))
	defer srv.Close()
	d := newDownloader(t, download.Config{MaxBody: 4})
	resp, err := d.Fetch(context.Background(), &frontier.Request{URL: srv.URL + "/sitemap.xml", Kind: frontier.KindSitemap})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Stream.Close()
	buf := make([]byte, 64)
	n, _ := resp.Stream.Read(buf)
	if string(buf[:n]) != "<urlset></urlset>" || resp.Body != nil {
		t.Errorf("stream read %q with Body %q; want the whole sitemap, uncapped, as a stream", buf[:n], resp.Body)
	}
	if ua := s.last().Header.Get("User-Agent"); ua != "HeedBot/1.0" {
		t.Errorf("User-Agent %q, want HeedBot/1.0", ua)
	}
}

package heedtest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Site is a directory of fixtures served on loopback, with the paths it
// was asked for.
type Site struct {
	// URL is the site's root, "http://127.0.0.1:PORT".
	URL string

	srv  *httptest.Server
	mu   sync.Mutex
	hits []string
}

// ServeDir serves the files under dir on a loopback port until the test
// ends: /a/b.html is dir/a/b.html, a directory's page is its index.html,
// /robots.txt is dir/robots.txt when there is one and a 404 otherwise
// (no restrictions), and a file's sidecar (see Meta) sets its status and
// headers. The sidecars themselves are not served.
func ServeDir(t testing.TB, dir string) *Site {
	t.Helper()
	s := &Site{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.RequestURI())
		s.mu.Unlock()
		s.serve(dir, w, r)
	}))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

func (s *Site) serve(dir string, w http.ResponseWriter, r *http.Request) {
	rel := filepath.FromSlash(strings.TrimPrefix(filepath.ToSlash(filepath.Clean("/"+r.URL.Path)), "/"))
	path := filepath.Join(dir, rel)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "index.html")
	}
	if strings.HasSuffix(path, ".meta.json") {
		http.NotFound(w, r)
		return
	}
	resp, err := Fixture(path, r.URL.String())
	if err != nil {
		http.NotFound(w, r)
		return
	}
	for k, vs := range resp.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding":
			continue // the body is served as saved, decompressed
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}

// Hits returns the request URIs the site received, in order.
func (s *Site) Hits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

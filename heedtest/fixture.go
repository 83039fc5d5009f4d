package heedtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// Meta is what a fixture's sidecar file, FILE.meta.json, says about the
// response it holds the body of.
type Meta struct {
	URL    string      `json:"url"`
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
}

// MetaPath returns the sidecar file of the fixture at path.
func MetaPath(path string) string { return path + ".meta.json" }

// WriteFixture saves a response as a fixture: the body at path, the URL,
// status and headers in its sidecar.
func WriteFixture(path string, m Meta, body []byte) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("heedtest: %w", err)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return fmt.Errorf("heedtest: %w", err)
	}
	if err := os.WriteFile(MetaPath(path), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("heedtest: %w", err)
	}
	return nil
}

// NewResponse returns a 200 response for rawURL with body, as heed's
// downloader would hand it to callbacks. Its Content-Type is sniffed from
// the body (text/html for a page).
func NewResponse(rawURL, body string) *middleware.Response {
	return &middleware.Response{
		Request: &frontier.Request{URL: rawURL},
		URL:     rawURL, Status: http.StatusOK,
		Header: http.Header{"Content-Type": {http.DetectContentType([]byte(body))}},
		Body:   []byte(body),
	}
}

// Fixture returns the response saved at path. rawURL is its URL; when it
// is empty, the sidecar's URL is used (an error if there is none). The
// sidecar's status and headers are used when it exists; otherwise the
// status is 200 and the Content-Type comes from the file's extension, or
// is sniffed.
func Fixture(path, rawURL string) (*middleware.Response, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("heedtest: %w", err)
	}
	m := Meta{Status: http.StatusOK}
	switch b, err := os.ReadFile(MetaPath(path)); {
	case err == nil:
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("heedtest: %s: %w", MetaPath(path), err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("heedtest: %w", err)
	}
	if rawURL == "" {
		rawURL = m.URL
	}
	if rawURL == "" {
		return nil, fmt.Errorf("heedtest: %s: no URL given and no %s naming one", path, filepath.Base(MetaPath(path)))
	}
	if m.Status == 0 {
		m.Status = http.StatusOK
	}
	if m.Header == nil {
		m.Header = http.Header{}
	}
	if m.Header.Get("Content-Type") == "" {
		ct := mime.TypeByExtension(filepath.Ext(path))
		if ct == "" {
			ct = http.DetectContentType(body)
		}
		m.Header.Set("Content-Type", ct)
	}
	return &middleware.Response{Request: &frontier.Request{URL: rawURL}, URL: rawURL, Status: m.Status, Header: m.Header, Body: body}, nil
}

// MustFixture is Fixture that fails the test on error.
func MustFixture(t testing.TB, path, rawURL string) *middleware.Response {
	t.Helper()
	r, err := Fixture(path, rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Parse builds the crawler s would run (its Setup and Options, then opts)
// and runs the callbacks of the handler named callback ("" for the
// default one) on resp: see crawler.Crawler.Parse. Nothing is fetched.
func Parse(s crawler.Spider, callback string, resp *middleware.Response, opts ...crawler.Option) (*crawler.ParseResult, error) {
	c, err := crawler.NewSpider(s, opts...)
	if err != nil {
		return nil, err
	}
	return c.Parse(context.Background(), callback, resp)
}

// MustParse is Parse that fails the test on error.
func MustParse(t testing.TB, s crawler.Spider, callback string, resp *middleware.Response, opts ...crawler.Option) *crawler.ParseResult {
	t.Helper()
	res, err := Parse(s, callback, resp, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

package download_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
)

// TestViewHandsRequestsBack checks that what colly's view of a page is
// asked to fetch is handed to the follow function, never sent: a Visit as
// a GET of the absolute URL, a Post with its method, body and form type.
func TestViewHandsRequestsBack(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1/dir/page") // nothing listens there
	var got []*frontier.Request
	view := download.View(download.Page{URL: u, Status: 200, Header: &http.Header{}, Body: []byte("<html></html>"), Depth: 3}, nil,
		func(req *frontier.Request) { got = append(got, req) })
	if view.StatusCode != 200 || view.Request.URL.String() != u.String() || view.Request.Depth != 3 || view.Request.Method != http.MethodGet {
		t.Fatalf("view %+v, request %+v", view, view.Request)
	}
	if err := view.Request.Visit("next?q=1"); err != nil {
		t.Logf("Visit: %v (aborted, as it should be)", err)
	}
	if err := view.Request.Post("/form", map[string]string{"a": "1"}); err != nil {
		t.Logf("Post: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("handed back %d requests, want 2: %+v", len(got), got)
	}
	if g := got[0]; g.URL != "http://127.0.0.1:1/dir/next?q=1" || g.Method != http.MethodGet || g.Body != nil || g.Header != nil {
		t.Errorf("Visit handed back %+v", g)
	}
	if g := got[1]; g.URL != "http://127.0.0.1:1/form" || g.Method != http.MethodPost || string(g.Body) != "a=1" ||
		g.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("Post handed back %+v (body %q)", g, g.Body)
	}
}

// TestViewOfADownloadedPage checks that a view keeps the downloaded colly
// response's values and request (its context included), and that its
// requests are handed back all the same.
func TestViewOfADownloadedPage(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1/a")
	native := &colly.Response{StatusCode: 404, Body: []byte("gone"), Ctx: colly.NewContext(), Request: &colly.Request{URL: u, Method: http.MethodGet, Depth: 1}}
	native.Ctx.Put("meta", "kept")
	var got []string
	view := download.View(download.Page{URL: u, Status: 404}, native, func(req *frontier.Request) { got = append(got, req.URL) })
	if view.StatusCode != 404 || string(view.Body) != "gone" || view.Ctx.Get("meta") != "kept" || view.Request.Depth != 1 {
		t.Fatalf("view %+v", view)
	}
	_ = view.Request.Visit("/b")
	if len(got) != 1 || got[0] != "http://127.0.0.1:1/b" {
		t.Errorf("handed back %v", got)
	}
}

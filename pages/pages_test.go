package pages_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/pages"
)

// TestEmit: one Page per HTML response, with what the page says and the
// crawl's clock; nothing for other content types; a named handler emits
// them too.
func TestEmit(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c, err := crawler.New("HeedBot", crawler.WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	pages.Emit(c)
	pages.Emit(c.Handle("named"))
	body := []byte(`<html><head><title> Shop </title><meta name="robots" content="noindex"></head>
<body><a href="/a">a</a><a href="/b">b</a><a>no href</a></body></html>`)
	resp := func(ct string) *middleware.Response {
		return &middleware.Response{
			Request: &frontier.Request{URL: "http://a.test/p", Depth: 2, Referrer: "http://a.test/"},
			Status:  200, Header: http.Header{"Content-Type": {ct}}, Body: body,
		}
	}
	for _, cb := range []string{"", "named"} {
		res, err := c.Parse(context.Background(), cb, resp("text/html; charset=utf-8"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 1 {
			t.Fatalf("handler %q: %d items, want one Page", cb, len(res.Items))
		}
		p, ok := res.Items[0].(pages.Page)
		if !ok {
			t.Fatalf("handler %q: item %T", cb, res.Items[0])
		}
		if p.URL != "http://a.test/p" || p.Status != 200 || p.Title != "Shop" || p.Depth != 2 ||
			p.Referrer != "http://a.test/" || p.Bytes != len(body) || p.Links != 2 || !p.FetchedAt.Equal(at) ||
			!slices.Equal(p.Robots, []string{"noindex"}) {
			t.Errorf("handler %q: page %+v", cb, p)
		}
	}
	res, err := c.Parse(context.Background(), "", resp("application/json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 0 {
		t.Errorf("a JSON response emitted %v", res.Items)
	}
}

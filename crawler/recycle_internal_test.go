package crawler

import (
	"context"
	"net/http"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// TestDispatchRecyclesUnseenBodies: a page body goes back to the
// downloader after dispatch exactly when no spider callback saw the
// response: FollowLinks alone, or nothing at all, recycles it; an
// OnResponse callback, or a callback that needs the DOM, keeps it.
func TestDispatchRecyclesUnseenBodies(t *testing.T) {
	page := []byte(`<html><head><title>t</title></head><body><a href="/b">b</a> <a href="http://other.test/c">c</a></body></html>`)
	tests := []struct {
		name  string
		setup func(*Crawler)
		want  int
	}{
		{"no callbacks", func(*Crawler) {}, 1},
		{"FollowLinks", func(c *Crawler) { c.FollowLinks() }, 1},
		{"FollowLinks and OnResponse", func(c *Crawler) { c.FollowLinks(); c.OnResponse(func(*Response) {}) }, 0},
		{"OnHTML", func(c *Crawler) { c.OnHTML("title", func(*HTMLElement) {}) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New("HeedBot", WithAllowedDomains("a.test"))
			if err != nil {
				t.Fatal(err)
			}
			tt.setup(c)
			ctx := context.Background()
			r, err := c.newRun(ctx, []string{"http://a.test/"})
			if err != nil {
				t.Fatal(err)
			}
			defer r.sess.Close()
			defer r.front.Close()
			recycled := 0
			mr := &middleware.Response{
				Request: &frontier.Request{URL: "http://a.test/a"}, URL: "http://a.test/a", Status: 200,
				Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: page,
				Recycle: func() { recycled++ },
			}
			r.dispatch(ctx, mr)
			if recycled != tt.want {
				t.Errorf("recycled %d times, want %d", recycled, tt.want)
			}
		})
	}
}

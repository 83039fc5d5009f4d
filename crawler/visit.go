package crawler

import (
	"net/http"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
)

// collyView returns colly's view of resp's page for the callbacks
// (download.View): what a callback asks it to Visit or Post is never
// fetched around the frontier, robots.txt and pacing, but takes
// Response.Follow's road (held on a nofollow page, buffered with the
// page's links, recorded by Crawler.Parse), for a page fetched live,
// replayed from the HTTP cache or given to Parse whole. Response.Follow
// is the call that resolves a link against <base href> as a browser does.
func collyView(resp *Response, native *colly.Response) *colly.Response {
	page := download.Page{URL: resp.URL, Status: resp.StatusCode, Header: &resp.Header, Body: resp.Body,
		Depth: resp.Request.Depth, Method: resp.Request.Method}
	return download.View(page, native, func(req *frontier.Request) {
		if req.Method == http.MethodGet {
			resp.Follow(req.URL)
			return
		}
		resp.FollowRequest(req)
	})
}

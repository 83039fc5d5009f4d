package crawler

import (
	"io"
	"net/http"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/frontier"
)

// A callback may hold colly's view of its page (HTMLElement.Request,
// Response.Colly) and ask it for more: Request.Visit, Post, PostRaw,
// PostMultipart. colly would fetch those at once, around the frontier,
// robots.txt and pacing; heed sends none of them. Every colly request the
// callbacks see belongs to one engine-wide collector that aborts whatever
// it is asked to fetch and hands it to the page's Response instead, so
// that it takes Response.Follow's road: held on a nofollow page, buffered
// with the page's links, recorded by Crawler.Parse, checked by scope and
// robots.txt. This holds for a page fetched live, replayed from the HTTP
// cache or given to Parse whole.
//
// colly resolves a link against the page's URL, not its <base href>, and
// returns an error for a link it cannot parse (nothing is followed then):
// Response.Follow is the call that resolves as a browser does.

// responseKey is where a colly request's Ctx carries the Response whose
// page it views.
const responseKey = "heed.response"

// visitCollector is the collector of every colly request a callback sees:
// made once, on first use, never sending a request.
var visitCollector = sync.OnceValue(func() *colly.Collector {
	c := colly.NewCollector(colly.AllowURLRevisit(), colly.IgnoreRobotsTxt())
	c.OnRequest(func(cr *colly.Request) {
		cr.Abort()
		resp, _ := cr.Ctx.GetAny(responseKey).(*Response)
		if resp == nil {
			return
		}
		if cr.Method == http.MethodGet {
			resp.Follow(cr.URL.String())
			return
		}
		resp.FollowRequest(collyRequest(cr))
	})
	return c
})

// collyRequest is the request a callback asked colly to make with a
// method other than GET (a form's POST): its method, its body read whole
// and the headers that describe the body. colly sets a form's
// Content-Type after the request has been handed over, so a POST without
// one gets the form type colly would have sent.
func collyRequest(cr *colly.Request) *frontier.Request {
	req := &frontier.Request{URL: cr.URL.String(), Method: cr.Method}
	if cr.Body != nil {
		req.Body, _ = io.ReadAll(cr.Body)
	}
	ct := ""
	if cr.Headers != nil {
		ct = cr.Headers.Get("Content-Type")
	}
	if ct == "" && cr.Method == http.MethodPost {
		ct = "application/x-www-form-urlencoded"
	}
	if ct != "" {
		req.Header = http.Header{"Content-Type": {ct}}
	}
	return req
}

// visitTemplate is a colly request of visitCollector, copied for each
// page's view (colly makes a request with its collector only this way).
var visitTemplate = sync.OnceValue(func() colly.Request {
	tmpl, err := visitCollector().UnmarshalRequest([]byte(`{"Method":"GET"}`))
	if err != nil {
		// A constant input: colly's own encoding of a request.
		panic("crawler: colly refused a request template: " + err.Error())
	}
	return *tmpl
})

// collyView returns colly's view of resp's page for the callbacks: the
// downloaded colly response, if any, with its request moved to
// visitCollector, or one built from resp (a cached page, a parsed
// fixture). The view's Ctx carries resp, and the downloader's values
// (the request's Meta) stay in it.
func collyView(resp *Response, native *colly.Response) *colly.Response {
	view := &colly.Response{StatusCode: resp.StatusCode, Body: resp.Body, Headers: &resp.Header}
	cr := visitTemplate()
	cr.URL, cr.Depth, cr.Method = resp.URL, resp.Request.Depth, http.MethodGet
	if resp.Request.Method != "" {
		cr.Method = resp.Request.Method
	}
	if native != nil {
		*view = *native
		if n := native.Request; n != nil {
			cr.URL, cr.Headers, cr.Host, cr.Depth, cr.Method, cr.ID, cr.ProxyURL = n.URL, n.Headers, n.Host, n.Depth, n.Method, n.ID, n.ProxyURL
			cr.ResponseCharacterEncoding = n.ResponseCharacterEncoding
		}
	}
	cr.Body = nil
	if cr.Headers == nil {
		cr.Headers = &http.Header{}
	}
	if view.Ctx == nil {
		view.Ctx = colly.NewContext()
	}
	cr.Ctx = view.Ctx
	cr.Ctx.Put(responseKey, resp)
	view.Request = &cr
	return view
}

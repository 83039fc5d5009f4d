package download

import (
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/frontier"
)

// Page is what View needs of a page when it has no colly response of its
// own (one served from the HTTP cache, or a fixture given to a parse).
type Page struct {
	URL    *url.URL
	Status int
	Header *http.Header
	Body   []byte
	// Depth and Method are those of the request that fetched the page
	// (Method "" is GET).
	Depth  int
	Method string
}

// View returns colly's view of a page for code written against colly: the
// downloaded colly response native, if any, or one built from p. What its
// Request is asked for (Visit, Post, PostRaw, PostMultipart) is never
// sent: every view's request belongs to one collector that aborts whatever
// it is asked to fetch and hands it to follow instead, as a
// frontier.Request with colly's absolute URL and, for a method other than
// GET, the method, the body read whole and its Content-Type (colly sets a
// form's after handing the request over, so a POST without one gets the
// form type colly would have sent). The engine's follow takes the road of
// a followed link: scope, robots.txt, pacing.
//
// colly resolves a link against the page's URL, not its <base href>, and
// returns an error for a link it cannot parse (nothing is followed then).
func View(p Page, native *colly.Response, follow func(*frontier.Request)) *colly.Response {
	view := &colly.Response{StatusCode: p.Status, Body: p.Body, Headers: p.Header}
	cr := viewTemplate()
	cr.URL, cr.Depth, cr.Method = p.URL, p.Depth, http.MethodGet
	if p.Method != "" {
		cr.Method = p.Method
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
	cr.Ctx.Put(followKey, follow)
	view.Request = &cr
	return view
}

// followKey is where a view's colly Ctx carries the function its requests
// are handed to (the downloader's values, the request's Meta, stay in it).
const followKey = "heed.follow"

// viewCollector is the collector of every view's request: made once, on
// first use, never sending a request.
var viewCollector = sync.OnceValue(func() *colly.Collector {
	c := colly.NewCollector(colly.AllowURLRevisit(), colly.IgnoreRobotsTxt())
	c.OnRequest(func(cr *colly.Request) {
		cr.Abort()
		if follow, _ := cr.Ctx.GetAny(followKey).(func(*frontier.Request)); follow != nil {
			follow(viewRequest(cr))
		}
	})
	return c
})

// viewRequest is the request a view was asked to make.
func viewRequest(cr *colly.Request) *frontier.Request {
	req := &frontier.Request{URL: cr.URL.String(), Method: cr.Method}
	if cr.Method == http.MethodGet {
		return req
	}
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

// viewTemplate is a request of viewCollector, copied for each view (colly
// makes a request with its collector only this way). Its input is a
// constant, colly's own encoding of a request. Were colly to refuse it,
// the views' requests would belong to no collector: nothing is fetched,
// and a callback's Visit panics, which the engine recovers and counts as
// a callback error.
var viewTemplate = sync.OnceValue(func() colly.Request {
	tmpl, err := viewCollector().UnmarshalRequest([]byte(`{"Method":"GET"}`))
	if err != nil {
		return colly.Request{}
	}
	return *tmpl
})

package crawler

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xmlquery"
	"github.com/gocolly/colly/v2"
	"golang.org/x/net/html"

	"github.com/heedcrawl/heed/htmlpage"
	"github.com/heedcrawl/heed/middleware"
)

// dispatch runs the callbacks of the request's handler on a successful
// response. A panicking callback is recovered and counted: one bad page
// never stops a crawl.
func (r *run) dispatch(ctx context.Context, mr *middleware.Response) {
	req := mr.Request
	h := r.c.handler(req.Callback)
	if h == nil {
		if r.said.First(callbackKey(req.Callback)) {
			r.cfg.logger.Warn("no handler for callback: its responses are not parsed (said once; counted as callback errors)",
				"callback", req.Callback, "url", req.URL, "handlers", r.c.handlerNames())
		}
		r.stats.CallbackError()
		return
	}
	resp, cr := r.response(ctx, mr)
	if resp == nil {
		return
	}
	defer resp.releaseTree()
	mt := mediaType(mr)
	r.readSignals(resp, mt == "text/html" || mt == "application/xhtml+xml")

	h.mu.RLock()
	onResp := append([]func(*Response){}, h.response...)
	onHTML := append([]htmlCallback(nil), h.html...)
	onXML := append([]xmlCallback(nil), h.xml...)
	h.mu.RUnlock()

	for _, fn := range onResp {
		r.safely(req.URL, "OnResponse", func() { fn(resp) })
	}
	switch mt {
	case "text/html", "application/xhtml+xml":
		if len(onHTML) == 0 && len(onXML) == 0 {
			r.recycle(mr, resp, len(onResp) == 0)
			return
		}
		if r.followScanned(resp, onHTML, onXML) {
			r.recycle(mr, resp, len(onResp) == 0)
			return
		}
		doc := resp.Doc()
		for _, cb := range onHTML {
			i := 0
			doc.Find(cb.selector).Each(func(_ int, s *goquery.Selection) {
				for _, n := range s.Nodes {
					e := &HTMLElement{HTMLElement: colly.NewHTMLElementFromSelectionNode(cr, s, n, i), Response: resp}
					i++
					r.safely(req.URL, "OnHTML "+cb.selector, func() { cb.fn(e) })
				}
			})
		}
		if len(onXML) > 0 && len(doc.Nodes) > 0 {
			eachXML(r, resp, onXML, func(q string) ([]*html.Node, error) { return htmlquery.QueryAll(doc.Nodes[0], q) },
				func(n *html.Node) *colly.XMLElement { return colly.NewXMLElementFromHTMLNode(cr, n) })
		}
	case "text/xml", "application/xml", "application/rss+xml", "application/atom+xml":
		if len(onXML) == 0 {
			return
		}
		doc, err := xmlquery.Parse(bytes.NewReader(mr.Body))
		if err != nil {
			r.cfg.logger.Warn("unparseable XML", "url", req.URL, "error", err)
			return
		}
		eachXML(r, resp, onXML, func(q string) ([]*xmlquery.Node, error) { return xmlquery.QueryAll(doc, q) },
			func(n *xmlquery.Node) *colly.XMLElement { return colly.NewXMLElementFromXMLNode(cr, n) })
	}
}

// eachXML runs the XML callbacks on the nodes of a tree (HTML or XML) each
// query finds, in document order.
func eachXML[N any](r *run, resp *Response, onXML []xmlCallback, query func(string) ([]N, error), elem func(N) *colly.XMLElement) {
	for _, cb := range onXML {
		nodes, err := query(cb.query)
		if err != nil {
			r.cfg.logger.Error("bad XPath", "query", cb.query, "error", err)
			continue
		}
		for i, n := range nodes {
			e := &XMLElement{XMLElement: elem(n), Response: resp}
			e.Index = i
			r.safely(resp.Request.URL, "OnXML "+cb.query, func() { cb.fn(e) })
		}
	}
}

// followScanned runs the callbacks on links read by htmlpage.Scan, without a
// DOM (for a page the DOM would hold whole), when every HTML callback is FollowLinks' a[href] one, no XML
// callback runs and nothing built the DOM already. It reports whether it
// did; if not, the caller builds the DOM.
func (r *run) followScanned(resp *Response, onHTML []htmlCallback, onXML []xmlCallback) bool {
	if len(onXML) > 0 || resp.doc != nil {
		return false
	}
	for _, cb := range onHTML {
		if !cb.links {
			return false
		}
	}
	scan := resp.scan
	if scan == nil {
		s := htmlpage.Scan(resp.Body, r.c.agent, r.cfg.maxElements)
		scan = &s
	}
	if !scan.LinksOK {
		return false
	}
	links := scan.Links
	resp.base = htmlpage.BaseOf(resp.URL, scan.Base, scan.HasBase)
	for _, cb := range onHTML {
		what := "OnHTML " + cb.selector
		for _, l := range links {
			link := l.Href
			if link == "" {
				link = l.Src
			}
			r.safely(resp.Request.URL, what, func() { resp.Follow(link) })
		}
	}
	return true
}

// response wraps a downloaded response for the callbacks, with colly's
// view of it (collyView: what colly is asked for takes Follow's road).
func (r *run) response(ctx context.Context, mr *middleware.Response) (*Response, *colly.Response) {
	req := mr.Request
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, nil
	}
	resp := &Response{Request: req, URL: u, StatusCode: mr.Status, Header: mr.Header, Body: mr.Body, Truncated: mr.Truncated, crawl: r, ctx: ctx}
	native, _ := mr.Native.(*colly.Response)
	resp.Colly = collyView(resp, native)
	return resp, resp.Colly
}

// recycle gives a page's body back to the downloader (Response.Recycle)
// when unseen says no spider callback saw the response: only heed's own
// link and signal scans read it, and they keep copies of what they found.
// With an HTTP cache the body may be kept by the cache, so it is left
// alone.
func (r *run) recycle(mr *middleware.Response, resp *Response, unseen bool) {
	if !unseen || mr.Recycle == nil || r.cfg.cache != nil {
		return
	}
	resp.Body = nil
	mr.Recycle()
}

// dispatchError runs the OnError callbacks of the request's handler on a
// final response that is not 2xx.
func (r *run) dispatchError(ctx context.Context, mr *middleware.Response) {
	h := r.c.handler(mr.Request.Callback)
	if h == nil {
		return
	}
	h.mu.RLock()
	onErr := append([]func(*Response, error){}, h.errors...)
	h.mu.RUnlock()
	if len(onErr) == 0 {
		return
	}
	resp, _ := r.response(ctx, mr)
	if resp == nil {
		return
	}
	err := &StatusError{URL: mr.Request.URL, StatusCode: mr.Status}
	for _, fn := range onErr {
		r.safely(mr.Request.URL, "OnError", func() { fn(resp, err) })
	}
}

// safely runs one callback, turning a panic into a counted error.
func (r *run) safely(pageURL, what string, fn func()) {
	defer func() {
		if p := recover(); p != nil {
			r.stats.CallbackError()
			r.cfg.logger.Error("callback panicked", "callback", what, "url", pageURL, "panic", fmt.Sprint(p))
		}
	}()
	fn()
}

// mediaType returns the response's media type, sniffed when the server
// sent none: the Content-Type before any parameter, trimmed and in lower
// case. (mime.ParseMediaType gives the same for a valid one, and the
// callbacks want the type whatever its parameters say, so it is not
// asked: it would build a map of the parameters of every response.)
func mediaType(mr *middleware.Response) string {
	ct := mr.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(mr.Body)
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

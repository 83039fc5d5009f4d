package crawler

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/antchfx/xmlquery"
	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/htmlpage"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

// Spider is a crawl written as a Go type, as in Scrapy: a name, where to
// start, and the callbacks that parse what comes back. Setup registers
// the callbacks (OnHTML, Handle(name) for the callbacks that requests
// name, Pipeline, Export, hooks) on a crawler made for the spider; its
// methods make natural callbacks:
//
//	func (s *shop) Setup(c *crawler.Crawler) error {
//		c.OnHTML("a.product", func(e *crawler.HTMLElement) {
//			e.Follow(e.Attr("href"), crawler.WithCallback("product"))
//		})
//		c.Handle("product").OnHTML("main", s.parseProduct)
//		return nil
//	}
//
// A spider with settings of its own (a delay, sitemaps to read, a scope)
// also implements SpiderOptions. RunSpider runs one; NewSpider builds the
// crawler for a program that adds exporters or hooks before running it.
type Spider interface {
	// Name is the product token the spider identifies itself with, as
	// the User-Agent's product and in robots.txt ("ExampleBot"): letters,
	// '-' and '_'.
	Name() string
	// StartURLs are the seeds. A spider that starts from sitemaps only
	// returns none and sets WithSitemaps in its Options.
	StartURLs() []string
	// Setup registers the spider's callbacks; an error stops the crawl
	// before it starts.
	Setup(c *Crawler) error
}

// SpiderOptions is implemented by a spider with settings of its own, like
// Scrapy's custom_settings. They apply before the options given to
// RunSpider or NewSpider, which therefore win.
type SpiderOptions interface {
	Options() []Option
}

// NewSpider returns a crawler named, configured and set up by s; run it
// with c.Run(ctx, s.StartURLs()...).
func NewSpider(s Spider, opts ...Option) (*Crawler, error) {
	if s == nil {
		return nil, errors.New("crawler: nil spider")
	}
	var all []Option
	if so, ok := s.(SpiderOptions); ok {
		all = append(all, so.Options()...)
	}
	c, err := New(s.Name(), append(all, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := s.Setup(c); err != nil {
		return nil, fmt.Errorf("crawler: spider %s: %w", s.Name(), err)
	}
	return c, nil
}

// RunSpider crawls with s from its start URLs until the crawl is done or
// ctx is cancelled, as Crawler.Run does.
func RunSpider(ctx context.Context, s Spider, opts ...Option) (Summary, error) {
	c, err := NewSpider(s, opts...)
	if err != nil {
		return Summary{}, err
	}
	return c.Run(ctx, s.StartURLs()...)
}

// Handler holds the callbacks for one kind of response. The crawler itself
// is the default handler (requests without a callback name); Handle(name)
// returns a named one, chosen by requests that name it, as in Scrapy where
// a request names the callback that parses its response.
type Handler struct {
	name     string
	mu       sync.RWMutex
	html     []htmlCallback
	xml      []xmlCallback
	response []func(*Response)
	errors   []func(*Response, error)
}

type htmlCallback struct {
	selector string
	fn       func(*HTMLElement)
	// links marks FollowLinks' a[href] callback, which needs the page's
	// links only, not its DOM.
	links bool
}

// Name returns the handler's callback name ("" for the crawler's default
// handler).
func (h *Handler) Name() string { return h.name }

type xmlCallback struct {
	query string
	fn    func(*XMLElement)
}

// OnHTML registers fn for every element matching the goquery selector in
// HTML responses, in document order, like colly's OnHTML.
func (h *Handler) OnHTML(selector string, fn func(e *HTMLElement)) {
	h.mu.Lock()
	h.html = append(h.html, htmlCallback{selector: selector, fn: fn})
	h.mu.Unlock()
}

// OnXML registers fn for every node matching the XPath query, in HTML
// responses (on the HTML tree) and XML responses, like colly's OnXML.
func (h *Handler) OnXML(query string, fn func(e *XMLElement)) {
	h.mu.Lock()
	h.xml = append(h.xml, xmlCallback{query, fn})
	h.mu.Unlock()
}

// OnResponse registers fn for every successful response, before the HTML
// and XML callbacks.
func (h *Handler) OnResponse(fn func(r *Response)) {
	h.mu.Lock()
	h.response = append(h.response, fn)
	h.mu.Unlock()
}

// OnError registers fn for every final response that is not 2xx, as
// colly's OnError: a 404, a 410, a 500 after the retries. err is a
// *StatusError. Redirects are followed, not reported; a request that got
// no response at all (every retry failed) is in the skip log as
// fetch-error and reaches the OnSkip hooks instead. fn may Emit and
// Follow like any callback.
func (h *Handler) OnError(fn func(r *Response, err error)) {
	h.mu.Lock()
	h.errors = append(h.errors, fn)
	h.mu.Unlock()
}

// StatusError is the error OnError callbacks get: the final response's
// status was not 2xx.
type StatusError struct {
	URL        string
	StatusCode int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: HTTP status %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// Response is a downloaded page handed to callbacks, with the ways a
// callback feeds the crawl: Follow (more URLs) and Emit (items).
type Response struct {
	// Request is the request this response answers.
	Request *frontier.Request
	// URL is the page's URL.
	URL *url.URL
	// StatusCode is the HTTP status.
	StatusCode int
	// Header is the response header.
	Header http.Header
	// Body is the response body (decompressed, capped at the body limit).
	Body []byte
	// Truncated reports that the body was cut at the body limit
	// (WithMaxBodySize): Body holds its first bytes only.
	Truncated bool
	// Colly is colly's view of the same response, for code written
	// against colly. What its Request is asked to Visit or Post is
	// followed as by Follow and FollowRequest, never fetched around the
	// frontier (visit.go).
	Colly *colly.Response

	// Directives are the page directives the response gave heed's token
	// (X-Robots-Tag, and meta robots for HTML), with their evidence.
	Directives pagerobots.Directives
	// Usage is the AI usage preference of every category of the
	// vocabulary (aipref.Categories), from robots.txt Content-Usage rules
	// and the Content-Usage header, with the statement that decided.
	Usage []aipref.Decision

	crawl        *run
	ctx          context.Context
	withheldOnce sync.Once
	withheld     *skiplog.Record
	loggedOnce   sync.Once
	scan         *htmlpage.Page // an HTML page's links and meta robots, read in one pass
	doc          *goquery.Document
	base         *url.URL
	xdoc         *xmlquery.Node
	// release gives back the parse budget the tree took; the dispatch
	// calls it when the callbacks are done.
	release func()
}

// releaseTree gives back what the response's tree took of the parse
// budget.
func (r *Response) releaseTree() {
	if r.release != nil {
		r.release()
	}
}

// Context returns the run's context for the work on this response: it
// carries the values of the context given to Run, and it is not cancelled
// when Run's is (a page being parsed is finished, not abandoned), but
// when the run is over, as Run returns: work a callback started on it
// (I/O of its own, a goroutine) stops with the crawl. Parse gives its
// callbacks the context it was given.
func (r *Response) Context() context.Context { return r.ctx }

// Now returns the time by the crawl's clock (WithClock): an item's fetch
// time, as the skip log's records have theirs.
func (r *Response) Now() time.Time {
	if r.crawl == nil {
		return time.Now()
	}
	return r.crawl.cfg.now()
}

// Meta returns the value the request carried under key.
func (r *Response) Meta(key string) string { return r.Request.Meta[key] }

// Doc returns the parsed HTML document (parsed once per response).
func (r *Response) Doc() *goquery.Document {
	if r.doc == nil {
		body := r.Body
		if r.crawl != nil {
			var whole bool
			var elements int
			body, whole, elements = htmlpage.Cut(body, r.crawl.cfg.maxElements)
			r.release = r.crawl.parses.Acquire(elements)
			if !whole {
				r.crawl.stats.PageCut()
				r.crawl.cfg.logger.Warn("page parsed in part: over the element limit", "url", r.Request.URL,
					"elements", r.crawl.cfg.maxElements, "bytes_parsed", len(body), "bytes", len(r.Body))
			}
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			doc = goquery.NewDocumentFromNode(nil)
		}
		r.doc = doc
		href, ok := doc.Find("base[href]").Attr("href")
		r.base = htmlpage.BaseOf(r.URL, href, ok)
	}
	return r.doc
}

// AbsoluteURL resolves a link found on the page against the page's URL (or
// its <base href>). It returns "" for links that are not crawlable (empty,
// javascript:, mailto:, tel:, data: ...).
// A link that does not parse even repaired is returned as written, so
// that Follow records it as invalid (see htmlpage.Resolve).
func (r *Response) AbsoluteURL(link string) string {
	return htmlpage.Resolve(cmp.Or(r.base, r.URL), link)
}

// Follow queues a link found on the page (relative links are resolved),
// one level deeper, with the same callback as this response unless an
// option says otherwise. Links that are not http(s) are ignored and
// counted; everything else is either queued, counted as a duplicate, or
// written to the skip log.
func (r *Response) Follow(link string, opts ...RequestOption) {
	r.follow(link, "", opts)
}

// follow is Follow for a link whose element has the rel attribute rel.
// A page that says nofollow (or, when the crawl honours it, a link marked
// rel="nofollow") holds the link back (pagesignals.go).
func (r *Response) follow(link, rel string, opts []RequestOption) {
	abs := r.AbsoluteURL(link)
	if abs == "" {
		r.crawl.stats.IgnoredLink()
		return
	}
	r.followRequest(&frontier.Request{URL: abs}, rel, opts)
}

// FollowRequest queues a request the callback built whole (a form's
// submission, an API call with its own method, headers and body): one
// level deeper than this response, found on it, with its callback unless
// req or an option names another. It passes the frontier, robots.txt and
// pacing like any followed link. req.URL must be absolute.
func (r *Response) FollowRequest(req *frontier.Request, opts ...RequestOption) {
	r.followRequest(req, "", opts)
}

func (r *Response) followRequest(req *frontier.Request, rel string, opts []RequestOption) {
	req.Depth = r.Request.Depth + 1
	req.Referrer = r.Request.URL
	if req.Callback == "" {
		req.Callback = r.Request.Callback
	}
	for _, o := range opts {
		o(req)
	}
	if rec := r.crawl.record; rec != nil {
		rec.follow(req)
		return
	}
	if r.crawl.links.Unfollow(r.Request.URL, r.Directives, req, rel) {
		return
	}
	r.crawl.follow(r.ctx, r.Request, req)
}

// Emit sends an item to the crawl's item pipelines and exporters.
func (r *Response) Emit(item any) {
	if rec := r.crawl.record; rec != nil {
		rec.emit(item)
		return
	}
	r.crawl.emit(r, item)
}

// RequestOption sets a field of a followed request.
type RequestOption = func(*frontier.Request)

// WithCallback names the callback that parses the followed page.
func WithCallback(name string) RequestOption {
	return func(r *frontier.Request) { r.Callback = name }
}

// WithMeta passes a value along to the followed page's callback.
func WithMeta(key, value string) RequestOption {
	return func(r *frontier.Request) {
		if r.Meta == nil {
			r.Meta = make(map[string]string)
		}
		r.Meta[key] = value
	}
}

// WithHeader sets a header of the followed request (Referer,
// Accept-Language, an API token ...). The User-Agent stays the crawler's.
func WithHeader(key, value string) RequestOption {
	return func(r *frontier.Request) {
		if r.Header == nil {
			r.Header = make(http.Header)
		}
		r.Header.Set(key, value)
	}
}

// WithMethod sets the followed request's HTTP method.
func WithMethod(method string) RequestOption {
	return func(r *frontier.Request) { r.Method = strings.ToUpper(method) }
}

// WithBody gives the followed request a body and its Content-Type; the
// method becomes POST unless it is set otherwise. Two requests to one URL
// with different bodies are two requests.
func WithBody(contentType string, body []byte) RequestOption {
	return func(r *frontier.Request) {
		if r.Method == "" || r.Method == http.MethodGet {
			r.Method = http.MethodPost
		}
		r.Body = body
		WithHeader("Content-Type", contentType)(r)
	}
}

// WithPriority sets the followed request's priority (higher first).
func WithPriority(p int) RequestOption {
	return func(r *frontier.Request) { r.Priority = p }
}

// HTMLElement is one element matched by an OnHTML selector. It embeds
// colly's HTMLElement (Attr, ChildText, ChildAttr, ForEach, DOM ...) and
// adds heed's Follow and Emit.
type HTMLElement struct {
	*colly.HTMLElement
	// Response is the page the element belongs to.
	Response *Response
}

// Follow queues a link, resolved against the page, like Response.Follow.
// A link followed from its own <a rel="nofollow"> element is held back
// when the crawl honours rel="nofollow" (WithRelNofollow).
func (e *HTMLElement) Follow(link string, opts ...RequestOption) {
	e.Response.follow(link, relOf(e, link), opts)
}

// Emit sends an item to the crawl's pipelines, like Response.Emit.
func (e *HTMLElement) Emit(item any) { e.Response.Emit(item) }

// ForEach calls fn for every element matching the selector below e, in
// document order, like colly's ForEach but with heed's element, so Follow
// and Emit work on the children too.
func (e *HTMLElement) ForEach(selector string, fn func(i int, child *HTMLElement)) {
	e.HTMLElement.ForEach(selector, func(i int, ce *colly.HTMLElement) {
		fn(i, &HTMLElement{HTMLElement: ce, Response: e.Response})
	})
}

// AbsoluteURL resolves a link against the page's URL or <base href>.
func (e *HTMLElement) AbsoluteURL(link string) string { return e.Response.AbsoluteURL(link) }

// XMLElement is one node matched by an OnXML query. It embeds colly's
// XMLElement and adds heed's Follow and Emit.
type XMLElement struct {
	*colly.XMLElement
	// Response is the document the node belongs to.
	Response *Response
}

// Follow queues a link, resolved against the document, like Response.Follow.
func (e *XMLElement) Follow(link string, opts ...RequestOption) { e.Response.Follow(link, opts...) }

// Emit sends an item to the crawl's pipelines, like Response.Emit.
func (e *XMLElement) Emit(item any) { e.Response.Emit(item) }

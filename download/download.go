package download

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// Config is what a Downloader is made of. The engine fills it from its
// options; every field has the meaning of the crawler option named beside
// it.
type Config struct {
	// UserAgent is sent with every request (WithUserAgent): a request's
	// own User-Agent header is never sent instead, so that the robots.txt
	// group heed obeys is the one the site sees addressed.
	UserAgent string
	// Timeout bounds one request, body included (WithTimeout); 0 means
	// no limit.
	Timeout time.Duration
	// MaxBody caps a page body in bytes after decompression
	// (WithMaxBodySize); 0 means no cap.
	MaxBody int
	// Transport carries every request (WithTransport); nil means
	// DefaultTransport.
	Transport http.RoundTripper
	// NoCookies turns the cookie jar off (WithoutCookies).
	NoCookies bool
	// Cookies are preset in the jar, each for its own authority
	// (WithCookies).
	Cookies []Cookies
	// Stray receives every GET that colly itself was asked to make (a
	// callback calling Request.Visit on a response's colly view), with
	// the request of the response it was asked on: it is never sent, so
	// that nothing bypasses the frontier and the robots stage, and the
	// engine follows it as a link instead. Other methods colly is asked
	// for are dropped, as are all of them when Stray is nil.
	Stray func(parent *frontier.Request, rawURL string)
}

// Downloader is the bottom of heed's chain: a colly Collector used only
// to download. It is a middleware.Fetcher; see the package doc for what
// it does and does not do.
type Downloader struct {
	c       *colly.Collector
	jar     *authorityJar
	maxBody int
	stray   func(parent *frontier.Request, rawURL string)
	// Sitemaps bypass colly (discovery.Download): they are fetched on the
	// raw transport, with the same User-Agent and timeout.
	transport http.RoundTripper
	userAgent string
	timeout   time.Duration
	// calls maps the id in a request's callHeader to its Fetch's call:
	// colly takes no context per request, so the transport looks the
	// call up, downloads under its context (a robots.txt attempt's
	// deadline, a closing crawl, the request timeout) and leaves the body
	// in it.
	calls  sync.Map
	callID atomic.Uint64
}

// callHeader carries a download's id from Fetch to the transport, which
// removes it before the request leaves.
const callHeader = "X-Heed-Call"

const slotKey = "heed.slot"

// call is one Fetch in progress: its context, for the transport, and the
// download's outcome, out of colly's callbacks.
type call struct {
	ctx     context.Context
	req     *frontier.Request
	started atomic.Bool
	resp    *colly.Response
	err     error
	// body is the response body as the transport read it, and read
	// whether it did: colly then reads an empty body, and Fetch hands
	// this one on (see boundedTransport.RoundTrip).
	body []byte
	read bool
	// pooled reports that body came from the body pools.
	pooled bool
}

// New returns a Downloader for cfg, or the error of a preset cookie whose
// URL names no authority (Config.Check).
func New(cfg Config) (*Downloader, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	c := colly.NewCollector(
		colly.UserAgent(cfg.UserAgent),
		colly.AllowURLRevisit(),
		colly.IgnoreRobotsTxt(),
		colly.ParseHTTPErrorResponse(),
		colly.MaxBodySize(0), // the transport enforces the limit, after decompression
	)
	transport := cfg.Transport
	if transport == nil {
		transport = DefaultTransport()
	}
	d := &Downloader{c: c, maxBody: cfg.MaxBody, stray: cfg.Stray, transport: transport, userAgent: cfg.UserAgent, timeout: cfg.Timeout}
	c.WithTransport(&boundedTransport{next: transport, max: int64(cfg.MaxBody), call: d.call})
	// The request timeout is the call's context's (see Fetch), not the
	// http.Client's: a Client with a timeout and a transport it does not
	// know runs a timer goroutine per request to cancel it.
	c.SetRequestTimeout(0)
	d.jar = newAuthorityJar()
	c.SetCookieJar(d.jar)
	c.SetRedirectHandler(func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse })
	c.OnRequest(func(r *colly.Request) {
		s, _ := r.Ctx.GetAny(slotKey).(*call)
		if s == nil || !s.started.CompareAndSwap(false, true) {
			// Not a request Fetch started: a callback called colly's
			// Visit. Never let it bypass the frontier.
			r.Abort()
			if d.stray != nil && s != nil && r.Method == http.MethodGet {
				d.stray(s.req, r.URL.String())
			}
		}
	})
	c.OnResponse(func(r *colly.Response) {
		if s, _ := r.Ctx.GetAny(slotKey).(*call); s != nil {
			s.resp = r
		}
	})
	c.OnError(func(r *colly.Response, err error) {
		if r == nil || r.Ctx == nil {
			return
		}
		if s, _ := r.Ctx.GetAny(slotKey).(*call); s != nil {
			s.err = err
			if r.StatusCode > 0 {
				s.resp = r
			}
		}
	})
	d.applyCookies(cfg)
	return d, nil
}

// Fetch downloads req and returns the response without following
// redirects. A page's body is read whole, up to MaxBody, and the
// response's Native is its *colly.Response; a sitemap's (Kind
// KindSitemap) is a stream (discovery.Download).
func (d *Downloader) Fetch(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
	if req.Kind == frontier.KindSitemap {
		// discovery.Download's timeout is a budget that runs out at zero:
		// no timeout is one that never comes.
		timeout := d.timeout
		if timeout <= 0 {
			timeout = math.MaxInt64
		}
		return discovery.Download(ctx, d.transport, d.userAgent, timeout, req)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if d.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d.timeout, &TimeoutError{Limit: d.timeout})
		defer cancel()
	}
	s := &call{ctx: ctx, req: req}
	cctx := colly.NewContext()
	cctx.Put(slotKey, s)
	for k, v := range req.Meta {
		cctx.Put(k, v)
	}
	id := strconv.FormatUint(d.callID.Add(1), 10)
	d.calls.Store(id, s)
	defer d.calls.Delete(id)
	start := time.Now()
	var reqBody io.Reader
	if len(req.Body) > 0 {
		reqBody = bytes.NewReader(req.Body)
	}
	sent := requestHeader(req.Header)
	sent.Set(callHeader, id)
	err := d.c.Request(method, req.URL, reqBody, cctx, sent)
	if s.resp == nil {
		if err == nil {
			err = s.err
		}
		if err == nil {
			err = errors.New("no response")
		}
		// net/http says only "context deadline exceeded", whoever's
		// deadline it was: when it was the request timeout's, say so.
		var te *TimeoutError
		if errors.Is(err, context.DeadlineExceeded) && errors.As(context.Cause(ctx), &te) {
			err = te
		}
		return nil, fmt.Errorf("download %s: %w", req.URL, err)
	}
	r := s.resp
	if s.read {
		r.Body = s.body
	}
	body := r.Body
	truncated := false
	if d.maxBody > 0 && len(body) > d.maxBody {
		body, truncated = body[:d.maxBody], true
		r.Body = body
	}
	var header http.Header
	if r.Headers != nil {
		header = *r.Headers
	} else {
		header = http.Header{}
	}
	resp := &middleware.Response{
		Request:   req,
		URL:       req.URL,
		Status:    r.StatusCode,
		Header:    header,
		Body:      body,
		Truncated: truncated,
		Elapsed:   time.Since(start),
		Native:    r,
	}
	if s.read && s.pooled {
		pooled := s.body
		resp.Recycle = func() {
			r.Body, resp.Body = nil, nil
			putBody(pooled)
		}
	}
	return resp, nil
}

// TimeoutError is the error of a download cut by the request timeout
// (Config.Timeout, the crawler's WithTimeout, heed's --timeout): no
// complete response, body included, came within it. It matches
// context.DeadlineExceeded under errors.Is, as the context's own error
// would. A download ended by the caller's context (the crawl stopping, or
// a deadline of the caller's, such as a robots.txt attempt's) returns
// that context's error instead.
type TimeoutError struct {
	// Limit is the request timeout that ran out.
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("request timeout: no complete response within %s (WithTimeout, --timeout)", e.Limit)
}

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Timeout reports true, as net.Error's Timeout does for a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// requestHeader is a request's own headers as sent: a copy, without a
// User-Agent, which stays the crawler's so that robots.txt groups address
// what the site sees, nor heed's own call header.
func requestHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Del("User-Agent")
	out.Del(callHeader)
	return out
}

// call returns the Fetch call id, or nil.
func (d *Downloader) call(id string) *call {
	v, ok := d.calls.Load(id)
	if !ok {
		return nil
	}
	return v.(*call)
}

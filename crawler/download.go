package crawler

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/heedcrawl/heed/discovery"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// downloader is the bottom of heed's chain: a colly Collector used only to
// download. colly's own robots.txt check and visited set are off (heed's
// robots stage and frontier own those), redirects are not followed (each
// hop goes back through the frontier and the whole chain), and response
// bodies are capped, compressed ones included.
type downloader struct {
	c       *colly.Collector
	jar     *authorityJar
	maxBody int
	// stray receives URLs that a callback asked colly itself to visit
	// (e.Request.Visit); heed turns them into followed links instead of
	// letting them bypass its frontier and robots check.
	stray func(parent *colly.Request, rawURL string)
	// Sitemaps bypass colly (see stream in sitemap_stream.go): they are
	// fetched on the raw transport, with the same User-Agent and timeout.
	transport http.RoundTripper
	userAgent string
	timeout   time.Duration
	// calls maps the id in a request's callHeader to its Fetch's
	// context: colly takes no context per request, so the transport
	// looks it up, and a cancelled context (a robots.txt attempt's
	// deadline, a closing crawl) ends the download.
	calls  sync.Map
	callID atomic.Uint64
}

// callHeader carries a download's id from Fetch to the transport, which
// removes it before the request leaves.
const callHeader = "X-Heed-Call"

const slotKey = "heed.slot"

// slot carries one download's outcome out of colly's callbacks.
type slot struct {
	started atomic.Bool
	resp    *colly.Response
	err     error
}

func newDownloader(userAgent string, timeout time.Duration, maxBody int, transport http.RoundTripper) *downloader {
	c := colly.NewCollector(
		colly.UserAgent(userAgent),
		colly.AllowURLRevisit(),
		colly.IgnoreRobotsTxt(),
		colly.ParseHTTPErrorResponse(),
		colly.MaxBodySize(0), // heed's transport enforces the limit, after decompression
	)
	if transport == nil {
		transport = defaultTransport()
	}
	d := &downloader{c: c, maxBody: maxBody, transport: transport, userAgent: userAgent, timeout: timeout}
	c.WithTransport(&boundedTransport{next: transport, max: int64(maxBody), ctx: d.callContext})
	c.SetRequestTimeout(timeout)
	d.jar = newAuthorityJar()
	c.SetCookieJar(d.jar)
	c.SetRedirectHandler(func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse })
	c.OnRequest(func(r *colly.Request) {
		s, _ := r.Ctx.GetAny(slotKey).(*slot)
		if s == nil || !s.started.CompareAndSwap(false, true) {
			// Not a request heed's downloader started: a callback called
			// colly's Visit. Never let it bypass the frontier.
			r.Abort()
			if d.stray != nil && r.Method == http.MethodGet {
				d.stray(r, r.URL.String())
			}
		}
	})
	c.OnResponse(func(r *colly.Response) {
		if s, _ := r.Ctx.GetAny(slotKey).(*slot); s != nil {
			s.resp = r
		}
	})
	c.OnError(func(r *colly.Response, err error) {
		if r == nil || r.Ctx == nil {
			return
		}
		if s, _ := r.Ctx.GetAny(slotKey).(*slot); s != nil {
			s.err = err
			if r.StatusCode > 0 {
				s.resp = r
			}
		}
	})
	return d
}

// DefaultTransport returns a new transport as heed's downloader makes one
// when WithTransport is not given: the proxy of the environment
// (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), a 10 s connect and TLS handshake
// timeout, and connection pools sized for many hosts. Change it (its
// Proxy, its TLSClientConfig) and pass it to WithTransport.
func DefaultTransport() *http.Transport { return defaultTransport() }

func defaultTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
}

// Fetch downloads req with colly and returns the response without
// following redirects.
func (d *downloader) Fetch(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
	if req.Kind == frontier.KindSitemap {
		return discovery.Download(ctx, d.transport, d.userAgent, d.timeout, req)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	s := &slot{}
	cctx := colly.NewContext()
	cctx.Put(slotKey, s)
	for k, v := range req.Meta {
		cctx.Put(k, v)
	}
	id := strconv.FormatUint(d.callID.Add(1), 10)
	d.calls.Store(id, ctx)
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
		return nil, fmt.Errorf("download %s: %w", req.URL, err)
	}
	r := s.resp
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
	return &middleware.Response{
		Request:   req,
		URL:       req.URL,
		Status:    r.StatusCode,
		Header:    header,
		Body:      body,
		Truncated: truncated,
		Elapsed:   time.Since(start),
		Native:    r,
	}, nil
}

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

// boundedTransport caps every response body at max+1 bytes after
// decompression, so that neither a huge page nor a compressed bomb can
// grow memory: heed decompresses gzip itself (colly would decompress after
// its own size limit, that is, without a limit) and marks the response as
// already decompressed.
type boundedTransport struct {
	next http.RoundTripper
	max  int64
	// ctx returns the context of the Fetch call whose id a request
	// carries in callHeader, or nil.
	ctx func(id string) context.Context
}

// callContext returns the context of the Fetch call id, or nil.
func (d *downloader) callContext(id string) context.Context {
	v, ok := d.calls.Load(id)
	if !ok {
		return nil
	}
	return v.(context.Context)
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req, stop := t.withCall(req)
	resp, err := t.bound(req)
	if err != nil || resp == nil || resp.Body == nil {
		stop()
		return resp, err
	}
	// The link to the call's context lasts as long as the body.
	body := resp.Body
	resp.Body = &readCloser{Reader: body, close: func() error { err := body.Close(); stop(); return err }}
	return resp, nil
}

// withCall gives req the context of the Fetch call it belongs to, when it
// carries one, and removes the call's header; stop ends the link.
func (t *boundedTransport) withCall(req *http.Request) (_ *http.Request, stop func()) {
	stop = func() {}
	if id := req.Header.Get(callHeader); id != "" {
		var ctx context.Context
		if t.ctx != nil {
			ctx = t.ctx(id)
		}
		if ctx != nil {
			// The call's cancellation and deadline, with colly's own
			// deadline (its request timeout) kept as well.
			var merged context.Context
			merged, stop = mergeCancel(req.Context(), ctx)
			req = req.WithContext(merged)
		} else {
			req = req.Clone(req.Context())
		}
		req.Header = req.Header.Clone()
		req.Header.Del(callHeader)
	}
	return req, stop
}

func (t *boundedTransport) bound(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	limit := t.max + 1
	if t.max <= 0 {
		limit = 1 << 62
	}
	if !resp.Uncompressed && looksGzipped(resp) {
		br := bufio.NewReader(resp.Body)
		if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
			zr, zerr := gzip.NewReader(br)
			if zerr == nil {
				resp.Body = &readCloser{Reader: io.LimitReader(zr, limit), close: resp.Body.Close}
				resp.Uncompressed = true
				resp.Header.Del("Content-Encoding")
				resp.Header.Del("Content-Length")
				resp.ContentLength = -1
				return resp, nil
			}
		}
		resp.Body = &readCloser{Reader: io.LimitReader(br, limit), close: resp.Body.Close}
		resp.Uncompressed = true // not gzip after all: keep colly from trying
		return resp, nil
	}
	resp.Body = &readCloser{Reader: io.LimitReader(resp.Body, limit), close: resp.Body.Close}
	return resp, nil
}

// looksGzipped mirrors the cases where colly would gunzip a body itself.
func looksGzipped(resp *http.Response) bool {
	enc := strings.ToLower(resp.Header.Get("Content-Encoding"))
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	path := ""
	if resp.Request != nil && resp.Request.URL != nil {
		path = strings.ToLower(resp.Request.URL.Path)
	}
	return strings.Contains(enc, "gzip") || (enc == "" && strings.Contains(ct, "gzip")) || strings.HasSuffix(path, ".gz")
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r *readCloser) Close() error { return r.close() }

// mergeCancel returns base, cancelled as well when other is done; stop
// releases the link.
func mergeCancel(base, other context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(base)
	stopLink := context.AfterFunc(other, func() { cancel(context.Cause(other)) })
	return ctx, func() { stopLink(); cancel(context.Canceled) }
}

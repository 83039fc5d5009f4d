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
	started atomic.Bool
	resp    *colly.Response
	err     error
	// body is the response body as the transport read it, and read
	// whether it did: colly then reads an empty body, and Fetch hands
	// this one on (see boundedTransport.RoundTrip).
	body []byte
	read bool
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
	c.WithTransport(&boundedTransport{next: transport, max: int64(maxBody), call: d.call})
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
			// Not a request heed's downloader started: a callback called
			// colly's Visit. Never let it bypass the frontier.
			r.Abort()
			if d.stray != nil && r.Method == http.MethodGet {
				d.stray(r, r.URL.String())
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
	if d.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	s := &call{ctx: ctx}
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
//
// For a request of a Fetch call it also reads the body, under the call's
// context, into one buffer of the body's size when the server said it
// (colly's io.ReadAll would grow one through a dozen copies), leaves it in
// the call and hands colly an empty body. Bodies colly recodes to UTF-8
// (a charset other than UTF-8 in Content-Type) are left to colly.
type boundedTransport struct {
	next http.RoundTripper
	max  int64
	// call returns the Fetch call whose id a request carries in
	// callHeader, or nil.
	call func(id string) *call
}

// call returns the Fetch call id, or nil.
func (d *downloader) call(id string) *call {
	v, ok := d.calls.Load(id)
	if !ok {
		return nil
	}
	return v.(*call)
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var cl *call
	if id := req.Header.Get(callHeader); id != "" {
		// The header map is the one Fetch built for this call alone
		// (requestHeader): removing heed's header from it in place spares
		// a copy of every header, and colly's view of the request does
		// not show it either.
		req.Header.Del(callHeader)
		if t.call != nil {
			cl = t.call(id)
		}
	}
	if cl != nil {
		// colly's own request context carries nothing heed needs: no
		// deadline (the Client has no timeout) and no cancellation.
		req = req.WithContext(cl.ctx)
	}
	resp, err := t.bound(req)
	if err != nil || resp == nil || resp.Body == nil || cl == nil || recodedByColly(resp.Header) {
		return resp, err
	}
	body, err := readBody(resp.Body, resp.ContentLength, t.limit())
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	cl.body, cl.read = body, true
	resp.Body = http.NoBody
	return resp, nil
}

// exactRead is the largest declared Content-Length read into a buffer of
// that size at once; a larger one (up to the body cap) is read into a
// growing buffer, so that a length a server claims but does not send
// costs no memory.
const exactRead = 256 << 10

// readBody reads r to its end, limit bytes at most (the transport's
// cap, which r already enforces), into one buffer of contentLength bytes
// when that is known and small.
func readBody(r io.Reader, contentLength, limit int64) ([]byte, error) {
	if contentLength < 0 || contentLength > exactRead {
		return io.ReadAll(r)
	}
	buf := make([]byte, min(contentLength, limit))
	n, err := io.ReadFull(r, buf)
	if err == io.EOF {
		// No body at all (HEAD, 204, 304): net/http's empty body.
		err = nil
	}
	// A body shorter than it said is net/http's io.ErrUnexpectedEOF,
	// an error as it was through io.ReadAll.
	return buf[:n], err
}

// recodedByColly reports whether colly would recode a body with this
// header to UTF-8 (Response.fixCharset with heed's settings: no charset
// detection, no default encoding): a charset in Content-Type other than
// UTF-8, on a type that is not media.
func recodedByColly(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	for _, media := range []string{"image/", "video/", "audio/", "font/"} {
		if strings.Contains(ct, media) {
			return false
		}
	}
	return strings.Contains(ct, "charset") && !strings.Contains(ct, "utf-8") && !strings.Contains(ct, "utf8")
}

// limit is the most bytes of a body read: one more than the cap, which
// tells a body cut by it.
func (t *boundedTransport) limit() int64 {
	if t.max <= 0 {
		return 1 << 62
	}
	return t.max + 1
}

func (t *boundedTransport) bound(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	limit := t.limit()
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

package download

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// DefaultTransport returns a new transport as a Downloader makes one when
// its Config has none: the proxy of the environment (HTTPS_PROXY,
// HTTP_PROXY, NO_PROXY), a 10 s connect and TLS handshake timeout, and
// connection pools sized for many hosts. Change it (its Proxy, its
// TLSClientConfig) and pass it as Config.Transport (crawler.WithTransport).
func DefaultTransport() *http.Transport {
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

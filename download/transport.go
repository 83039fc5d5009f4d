package download

import (
	"bufio"
	"bytes"
	"compress/gzip"
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
	body, pooled, err := readBody(resp.Body, resp.ContentLength, t.limit())
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	cl.body, cl.read, cl.pooled = body, true, pooled
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
// when that is known and small; pooled reports a buffer from the body
// pools (bodypool.go), which may be given back once nothing holds it.
func readBody(r io.Reader, contentLength, limit int64) (body []byte, pooled bool, err error) {
	if contentLength < 0 || contentLength > exactRead {
		body, err = io.ReadAll(r)
		return body, false, err
	}
	buf, pooled := getBody(int(min(contentLength, limit)))
	n, err := io.ReadFull(r, buf)
	if err == io.EOF {
		// No body at all (HEAD, 204, 304): net/http's empty body.
		err = nil
	}
	if err != nil && pooled {
		// A body shorter than it said is net/http's io.ErrUnexpectedEOF,
		// an error as it was through io.ReadAll; the buffer is not
		// handed on, so it goes back at once.
		putBody(buf)
		return nil, false, err
	}
	return buf[:n], pooled, err
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

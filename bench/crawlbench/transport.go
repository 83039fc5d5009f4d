package main

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/heedcrawl/heed/bench/internal/benchkit"
)

// newTransport is the one HTTP transport both crawlers download with, so
// that connection handling is not a difference between them: keep-alives
// on, up to perHost idle connections kept per host (one for each request
// a host may have in flight), no proxy, plain HTTP/1.1 (the test site
// speaks nothing else), and at most budget requests in flight in all.
//
// The budget matters for colly, whose async mode starts a goroutine per
// request and has no global limit of its own: heed never exceeds it
// anyway, because each of its budget workers has at most one request out.
//
// sends, when not nil, records when each request leaves the crawler.
func newTransport(perHost, budget int, sends *sendLog) http.RoundTripper {
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0, // no total limit; the per-host limit decides
		MaxIdleConnsPerHost:   max(perHost, 8),
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	var rt http.RoundTripper = t
	if budget > 0 {
		rt = &budgetTransport{next: rt, slots: make(chan struct{}, budget)}
	}
	if sends != nil {
		rt = &sendTransport{next: rt, log: sends}
	}
	return rt
}

// sendLog is the crawler's side of the hit log: the moment each request
// was handed to the transport, before any wait for a budget slot or a
// connection. Comparing its spacing with the site's arrival times tells
// pacing that is too tight from requests delayed on their way.
type sendLog struct {
	mu    sync.Mutex
	sends map[string][]benchkit.Stamp // by authority
}

func (l *sendLog) record(req *http.Request) {
	now := time.Now()
	auth := req.URL.Scheme + "://" + req.URL.Host
	l.mu.Lock()
	if l.sends == nil {
		l.sends = map[string][]benchkit.Stamp{}
	}
	l.sends[auth] = append(l.sends[auth], benchkit.Stamp{Path: req.URL.RequestURI(), Time: now})
	l.mu.Unlock()
}

// byAuthority returns the sends recorded so far.
func (l *sendLog) byAuthority() map[string][]benchkit.Stamp {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string][]benchkit.Stamp, len(l.sends))
	for a, s := range l.sends {
		out[a] = append([]benchkit.Stamp(nil), s...)
	}
	return out
}

type sendTransport struct {
	next http.RoundTripper
	log  *sendLog
}

func (t *sendTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.log.record(req)
	return t.next.RoundTrip(req)
}

// budgetTransport holds one of its slots from the start of a request until
// its body is closed, so a download counts against the budget while its
// body is read, not only until the headers arrive.
type budgetTransport struct {
	next  http.RoundTripper
	slots chan struct{}
}

func (t *budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case t.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		<-t.slots
		return resp, err
	}
	resp.Body = &slotBody{ReadCloser: resp.Body, release: func() { <-t.slots }}
	return resp, nil
}

type slotBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *slotBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

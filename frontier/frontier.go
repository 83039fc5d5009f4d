// Package frontier owns heed's queue of URLs waiting to be fetched:
// canonical URLs and their fingerprints, the seen set that makes every URL
// be fetched once, per-authority queues, and scheduling by readiness.
//
// # Canonical URLs and fingerprints
//
// Every URL enters the frontier through [Canonicalize], which writes one
// spelling for each resource (lower-case scheme and host, no default port,
// no fragment, no credentials, dot segments removed, percent-encoding
// normalised, the query kept in its order) and refuses, with a [*URLError],
// what heed cannot fetch: relative references, schemes other than http and
// https, malformed hosts and ports. [Authority] gives the part robots.txt,
// pacing and caches are kept by: scheme, host and port. A [Fingerprint] is
// the 128-bit hash of a request's method and canonical URL; the seen set
// holds fingerprints, so a URL costs little once it has been fetched: the
// whole 16 bytes in the durable and Redis frontiers, 8 bytes folded from
// them in the in-memory one (see [Memory] for what that trades).
//
// # The model
//
// Every URL belongs to an authority, and each authority has its own queue,
// ordered by the request's Priority (higher first) and then by Depth:
// breadth-first (shallower first, then first in, first out) by default, or
// depth-first (deeper first, then last in, first out); see [Order.Less].
//
// A [Frontier] hands out a request only when its authority may be fetched
// now. It asks a [Gate] (heed's politeness.Pacer) when each authority is
// next ready, holds an authority that a Retry put off, and leases at most a
// set number of requests per authority at once. Among the authorities that
// are ready it takes the one whose next request has the highest priority
// and depth rank, and serves equals in turn. It never waits on one host
// while another host has work ready: a host paused for an hour delays only
// its own requests.
//
// # Using a Frontier
//
// Four calls make a crawl loop, run by as many workers as the crawl wants:
//
//   - Push adds a request. It canonicalises the URL, drops a URL seen
//     before as a Duplicate (counted, not an error), asks the admission
//     function (heed's scope stage) and queues the rest. A Rejected request
//     comes with the reason, for the skip log.
//   - Next blocks until a request is ready and leases it to the caller. It
//     returns [ErrExhausted] when nothing is queued and nothing is leased:
//     the crawl is over.
//   - Done ends the lease of a request that was fetched or excluded.
//   - Retry ends the lease and puts the request back at the head of its
//     authority's queue, not to be handed out before a given time: for a
//     robots.txt that is not yet known, a 503, or a host asking to slow
//     down.
//
// A lease is what lets a durable or distributed frontier give a crashed
// worker's requests to another. Drain empties the queue for a stopping
// crawl, which writes a skip-log record for each request; Stats gives the
// counts.
//
// [NewMemory] returns the in-memory frontier that most crawls use. Durable
// and distributed backends implement the same interface, take the same
// [Option] values (see [NewConfig]) and pass the same conformance suite,
// package frontiertest.
//
// # What it does not do
//
// The frontier fetches nothing, reads no robots.txt and decides no
// exclusions beyond invalid URLs: the admission function and the
// middleware do, and the caller writes the skip log. It does not pace
// requests either; it asks the Gate and obeys it.
package frontier

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ErrExhausted is returned by Next when no request is queued and none is
// leased: the crawl has nothing left to do.
var ErrExhausted = errors.New("frontier: exhausted")

// ErrClosed is returned by a Frontier's methods after Close.
var ErrClosed = errors.New("frontier: closed")

// Kind says what a request fetches; it decides how the response is handled.
type Kind uint8

const (
	// KindPage is a page for the spider's callbacks.
	KindPage Kind = iota
	// KindSitemap is a sitemap, sitemap index or feed to be read for URLs.
	KindSitemap
	// KindRobots is a robots.txt fetch made by heed's robots stage. Such
	// requests never enter a frontier; the kind lets the stages below the
	// robots stage (pacing, downloading) tell them apart.
	KindRobots
)

// Request is one URL waiting to be fetched, with what heed needs to schedule
// it and what a spider attached to it. Every field is plain data so that
// durable and distributed backends can store it.
type Request struct {
	// URL is the absolute URL. Push replaces it with its canonical form.
	URL string `json:"url"`
	// Method is the HTTP method; empty means GET.
	Method string `json:"method,omitempty"`
	// Header holds the request headers a spider set (Referer,
	// Accept-Language, a POST's Content-Type ...), sent on top of the
	// downloader's own; the downloader keeps its User-Agent whatever
	// Header says, so robots.txt groups stay addressed to the crawler.
	Header http.Header `json:"header,omitempty"`
	// Body is the request body (a POST's form or JSON); empty for a GET.
	// Requests that differ only by body are different requests: the body
	// is part of the Fingerprint.
	Body []byte `json:"body,omitempty"`
	// Kind says how the response is handled.
	Kind Kind `json:"kind,omitempty"`
	// Depth is the number of links followed from a seed (seeds are 0).
	Depth int `json:"depth,omitempty"`
	// Priority orders requests within an authority: higher first.
	Priority int `json:"priority,omitempty"`
	// Callback names the spider callback that parses the response; empty
	// means the spider's default callbacks.
	Callback string `json:"callback,omitempty"`
	// Meta is passed along to the callback (and to the request's
	// redirects).
	Meta map[string]string `json:"meta,omitempty"`
	// Referrer is the URL of the page or sitemap the URL was found on.
	Referrer string `json:"referrer,omitempty"`
	// Redirects lists the URLs that redirected to this one, oldest first.
	Redirects []string `json:"redirects,omitempty"`
	// Attempt counts earlier tries of this request that ended in a
	// retryable failure.
	Attempt int `json:"attempt,omitempty"`
	// Seq is the order of admission, assigned by Push. Backends use it for
	// FIFO and LIFO order and callers may use it as an identifier.
	Seq uint64 `json:"seq,omitempty"`
}

// Authority returns the request's authority (see [Authority]); the empty
// string when the URL cannot be parsed.
func (r *Request) Authority() string {
	a, err := Authority(r.URL)
	if err != nil {
		return ""
	}
	return a
}

// PushResult says what Push did with a request.
type PushResult uint8

const (
	// Added means the request was queued.
	Added PushResult = iota
	// Duplicate means the URL was seen before; it is counted, not queued.
	Duplicate
	// Rejected means the URL was invalid or the admission function refused
	// it; Push's error says why. The URL is marked seen, so a later
	// discovery of it is a Duplicate.
	Rejected
)

// String returns "added", "duplicate" or "rejected".
func (p PushResult) String() string {
	switch p {
	case Added:
		return "added"
	case Duplicate:
		return "duplicate"
	case Rejected:
		return "rejected"
	}
	return "unknown"
}

// Gate tells the frontier when an authority may next be fetched. heed's
// politeness.Pacer implements it. ReadyAt must not block and must not
// reserve anything: it is asked often, and the request it allows may still
// be excluded before any byte is sent.
type Gate interface {
	// ReadyAt returns the earliest time a request to authority may start;
	// a time not after now means it may start now.
	ReadyAt(authority string) time.Time
}

// GateFunc adapts a function to the Gate interface.
type GateFunc func(authority string) time.Time

// ReadyAt calls f(authority).
func (f GateFunc) ReadyAt(authority string) time.Time { return f(authority) }

// Frontier is heed's queue. Implementations are safe for concurrent use.
type Frontier interface {
	// Push canonicalises req.URL, drops it as a Duplicate when its
	// fingerprint was seen before, asks the admission function, and queues
	// it. A Rejected request comes with the error that rejected it (an
	// invalid URL's *URLError, or the admission function's error, returned
	// as is). An Added request has its canonical URL and a new Seq set;
	// the frontier owns it until Next hands it out. After Close: Rejected
	// and ErrClosed.
	Push(ctx context.Context, req *Request) (PushResult, error)

	// Next blocks until a queued request's authority is ready and leases
	// that request to the caller. It returns ErrExhausted when nothing is
	// queued, nothing is leased and no Push is being admitted (to every
	// waiting caller), ErrClosed after Close, or the context's error.
	Next(ctx context.Context) (*Request, error)

	// Done ends the lease of a request handed out by Next: it was fetched
	// or excluded, and will not be handed out again. Leases are matched by
	// Seq and URL; a request that is not leased gives an error wrapping
	// ErrNotLeased.
	Done(ctx context.Context, req *Request) error

	// Retry ends the lease of a request handed out by Next and queues it
	// again at the head of its authority's queue; its authority is not
	// handed out before notBefore. The request is not a new URL: seen set
	// and counts are unchanged. The request is queued as passed, so a
	// changed Attempt or Meta is kept. A request that is not leased gives an
	// error wrapping ErrNotLeased.
	Retry(ctx context.Context, req *Request, notBefore time.Time) error

	// Drain removes every queued (not leased) request and passes each to
	// fn, so that a stopping crawl can account for them: each authority's
	// requests in queue order. Drained URLs stay seen. Call it before
	// Close.
	Drain(ctx context.Context, fn func(*Request)) error

	// Stats reports the frontier's counts.
	Stats() Stats

	// Close releases the frontier's resources; blocked Next calls return
	// ErrClosed. Calling it again does no harm.
	Close() error
}

// Stats are a frontier's counts.
type Stats struct {
	Queued      int            // requests waiting, not leased
	Leased      int            // requests handed out and not yet Done
	Seen        int            // distinct fingerprints admitted or rejected
	Duplicates  int            // pushes dropped as duplicates
	Rejected    int            // pushes rejected
	ByAuthority map[string]int // queued requests per authority
}

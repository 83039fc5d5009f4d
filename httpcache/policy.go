package httpcache

import (
	"net/http"
	"time"

	"github.com/pquerna/cachecontrol/cacheobject"
)

// Request is what a Policy knows of a request: its method, canonical URL
// and the headers the spider set.
type Request struct {
	Method string
	URL    string
	Header http.Header
}

// Verdict is what a Policy says a stored entry is good for.
type Verdict uint8

const (
	// Miss: the entry is of no use; the request goes to the site as it
	// is, and its response replaces the entry.
	Miss Verdict = iota
	// Fresh: the entry is served as it is, without contacting the site.
	Fresh
	// Stale: the entry may be served only after the site confirms it (a
	// conditional request answered 304).
	Stale
)

func (v Verdict) String() string {
	switch v {
	case Fresh:
		return "fresh"
	case Stale:
		return "stale"
	}
	return "miss"
}

// Policy decides which responses a Cache stores and what a stored one is
// good for. Replay and RFC9111 are heed's two.
type Policy interface {
	// Storable reports whether e, the response just received for req,
	// may be stored.
	Storable(req Request, e *Entry) bool
	// Check says, at now, whether e may be served for req as it is, only
	// after revalidation, or not at all.
	Check(req Request, e *Entry, now time.Time) Verdict
}

// Replay serves every stored response as it is, without contacting the
// site, however old it is (the cache's WithMaxAge bounds that): Scrapy's
// DummyPolicy, for developing a spider offline. It stores every response
// but 429 and 5xx, which say nothing lasting about a page.
type Replay struct{}

// Storable implements Policy.
func (p Replay) Storable(_ Request, e *Entry) bool {
	return e.Status != http.StatusTooManyRequests && e.Status < 500
}

// Check implements Policy.
func (Replay) Check(Request, *Entry, time.Time) Verdict { return Fresh }

// RFC9111 is the policy of a private HTTP cache (RFC 9111): responses are
// stored when the protocol allows, served while fresh, and revalidated with
// their ETag or Last-Modified once stale. Cacheability and the freshness
// lifetime (max-age, Expires less Date, or a tenth of the time since
// Last-Modified, at most 24 hours) come from
// github.com/pquerna/cachecontrol; the age is RFC 9111 §4.2.3's, with the
// Age header the response arrived with.
//
// A response marked no-cache, and a request whose own Cache-Control says
// no-cache, are always revalidated; no-store (either side) is never stored.
// A stale entry without a validator is a miss.
type RFC9111 struct{}

func object(req Request, e *Entry) (*cacheobject.Object, bool) {
	respDir, err := cacheobject.ParseResponseCacheControl(e.Header.Get("Cache-Control"))
	if err != nil {
		return nil, false
	}
	reqDir, err := cacheobject.ParseRequestCacheControl(req.Header.Get("Cache-Control"))
	if err != nil {
		return nil, false
	}
	obj := &cacheobject.Object{
		CacheIsPrivate: true,
		RespDirectives: respDir,
		RespHeaders:    e.Header,
		RespStatusCode: e.Status,
		ReqDirectives:  reqDir,
		ReqHeaders:     req.Header,
		ReqMethod:      req.Method,
		NowUTC:         e.ReceivedAt.UTC(),
	}
	if obj.ReqHeaders == nil {
		obj.ReqHeaders = http.Header{}
	}
	if v := e.Header.Get("Expires"); v != "" {
		if t, err := http.ParseTime(v); err == nil {
			obj.RespExpiresHeader = t.UTC()
		} else {
			// "Expires: 0" and the like: already expired (RFC 9111 §5.3).
			obj.RespExpiresHeader = time.Unix(0, 0).UTC()
		}
	}
	if t, err := http.ParseTime(e.Header.Get("Date")); err == nil {
		obj.RespDateHeader = t.UTC()
	}
	if t, err := http.ParseTime(e.Header.Get("Last-Modified")); err == nil {
		obj.RespLastModifiedHeader = t.UTC()
	}
	return obj, true
}

// Storable implements Policy.
func (RFC9111) Storable(req Request, e *Entry) bool {
	obj, ok := object(req, e)
	if !ok {
		return false
	}
	var rv cacheobject.ObjectResults
	cacheobject.CachableObject(obj, &rv)
	return len(rv.OutReasons) == 0 && rv.OutErr == nil
}

// Lifetime is e's freshness lifetime under RFC9111: how long after it was
// received it may be served without revalidation (0 when it carries no
// freshness information).
func (RFC9111) Lifetime(req Request, e *Entry) time.Duration {
	obj, ok := object(req, e)
	if !ok {
		return 0
	}
	var rv cacheobject.ObjectResults
	cacheobject.ExpirationObject(obj, &rv)
	if rv.OutExpirationTime.IsZero() {
		return 0
	}
	return max(0, rv.OutExpirationTime.Sub(obj.NowUTC))
}

// Check implements Policy.
func (p RFC9111) Check(req Request, e *Entry, now time.Time) Verdict {
	obj, ok := object(req, e)
	if !ok {
		return Miss
	}
	revalidate := func() Verdict {
		if hasValidator(e) {
			return Stale
		}
		return Miss
	}
	if obj.RespDirectives.NoCachePresent || obj.ReqDirectives.NoCache || obj.ReqDirectives.NoStore {
		return revalidate()
	}
	if p.Lifetime(req, e) > e.Age(now) {
		return Fresh
	}
	return revalidate()
}

func hasValidator(e *Entry) bool {
	return e.Header.Get("ETag") != "" || e.Header.Get("Last-Modified") != ""
}

// conditional returns the headers that ask the site whether e still holds:
// If-None-Match with its ETag, If-Modified-Since with its Last-Modified.
func conditional(h http.Header, e *Entry) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	if v := e.Header.Get("ETag"); v != "" {
		out.Set("If-None-Match", v)
	}
	if v := e.Header.Get("Last-Modified"); v != "" {
		out.Set("If-Modified-Since", v)
	}
	return out
}

// refreshed returns e updated by a 304 answer (RFC 9111 §4.3.4): the 304's
// header fields replace the stored ones of the same name, except those that
// describe the stored body, and the entry is as new as the answer.
func refreshed(e *Entry, h http.Header, requested, received time.Time) *Entry {
	n := *e
	n.Header = e.Header.Clone()
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Content-Range":
			continue
		}
		n.Header[k] = append([]string(nil), vs...)
	}
	n.RequestedAt, n.ReceivedAt = requested, received
	return &n
}

package httpcache

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Entry is one stored response, without its body: what was asked and what
// came back.
type Entry struct {
	// Method is the request's method ("GET" for an empty one).
	Method string `json:"method"`
	// URL is the request's canonical URL; heed's downloader follows no
	// redirects, so it is also the response's URL.
	URL string `json:"url"`
	// RequestHeader holds the values the request had for the fields the
	// response's Vary names, to tell whether a later request may use it.
	RequestHeader http.Header `json:"request_header,omitempty"`
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Header is the response header.
	Header http.Header `json:"header"`
	// Truncated reports that the body was cut at the size limit.
	Truncated bool `json:"truncated,omitempty"`
	// RequestedAt is when the request was sent, and ReceivedAt when its
	// response (or the last revalidation's) arrived: RFC 9111's
	// request_time and response_time.
	RequestedAt time.Time `json:"requested_at"`
	ReceivedAt  time.Time `json:"received_at"`
	// BodySize and BodyCRC describe the body file; a body that does not
	// match them is damage.
	BodySize int64  `json:"body_size"`
	BodyCRC  uint32 `json:"body_crc32"`
}

// metaVersion is the first line's format; a later one can add fields.
const metaVersion = "heed-httpcache 1"

// maxMeta bounds a meta file: a larger one is damage, not an entry.
const maxMeta = 1 << 20

// ErrDamaged is wrapped by the errors a Store returns for an entry it
// cannot trust: a meta file that does not parse, a body that does not match
// its length or checksum.
var ErrDamaged = errors.New("httpcache: damaged entry")

// ErrNotFound is returned by a Store's Load for a key with no entry.
var ErrNotFound = errors.New("httpcache: no entry")

// encodeMeta writes an entry's meta file: a version line, then JSON.
func encodeMeta(e *Entry) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("httpcache: encode entry %s: %w", e.URL, err)
	}
	return append([]byte(metaVersion+"\n"), append(b, '\n')...), nil
}

// decodeMeta parses what encodeMeta wrote, and refuses, with ErrDamaged,
// anything else: another version, bad JSON, an entry without its URL or
// status, a negative body size.
func decodeMeta(b []byte) (*Entry, error) {
	if len(b) > maxMeta {
		return nil, fmt.Errorf("%w: meta file of %d bytes", ErrDamaged, len(b))
	}
	first, rest, ok := strings.Cut(string(b), "\n")
	if !ok || first != metaVersion {
		return nil, fmt.Errorf("%w: not a %q meta file", ErrDamaged, metaVersion)
	}
	e := new(Entry)
	dec := json.NewDecoder(strings.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(e); err != nil {
		return nil, fmt.Errorf("%w: meta: %v", ErrDamaged, err)
	}
	switch {
	case e.URL == "" || e.Method == "":
		return nil, fmt.Errorf("%w: meta names no request", ErrDamaged)
	case e.Status < 100 || e.Status > 999:
		return nil, fmt.Errorf("%w: status %d", ErrDamaged, e.Status)
	case e.BodySize < 0:
		return nil, fmt.Errorf("%w: body size %d", ErrDamaged, e.BodySize)
	}
	if e.Header == nil {
		e.Header = http.Header{}
	}
	return e, nil
}

// Age is how old the entry is at now, as RFC 9111 §4.2.3 computes it: the
// Age header it arrived with (or the apparent age from its Date), plus the
// time it spent on the way and in the cache since.
func (e *Entry) Age(now time.Time) time.Duration {
	apparent := time.Duration(0)
	if date, err := http.ParseTime(e.Header.Get("Date")); err == nil {
		apparent = max(0, e.ReceivedAt.Sub(date))
	}
	ageValue := time.Duration(0)
	if v, ok := deltaSeconds(e.Header.Get("Age")); ok {
		ageValue = v
	}
	delay := max(0, e.ReceivedAt.Sub(e.RequestedAt))
	initial := max(apparent, ageValue+delay)
	return initial + max(0, now.Sub(e.ReceivedAt))
}

// deltaSeconds parses a non-negative integer number of seconds.
func deltaSeconds(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 10 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(v[i]-'0')
	}
	return time.Duration(n) * time.Second, true
}

// varyMatches reports whether a request with header h may use e: every
// field e's response Vary names has the value it had when e was stored.
// "Vary: *" matches nothing.
func (e *Entry) varyMatches(h http.Header) bool {
	for _, f := range varyFields(e.Header) {
		if f == "*" {
			return false
		}
		if strings.Join(h.Values(f), ", ") != strings.Join(e.RequestHeader.Values(f), ", ") {
			return false
		}
	}
	return true
}

// varyFields lists the field names a response's Vary headers name.
func varyFields(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, http.CanonicalHeaderKey(f))
			}
		}
	}
	return out
}

// varyHeader keeps the request header values a response's Vary names.
func varyHeader(resp, req http.Header) http.Header {
	var out http.Header
	for _, f := range varyFields(resp) {
		if f == "*" {
			continue
		}
		if vs := req.Values(f); len(vs) > 0 {
			if out == nil {
				out = http.Header{}
			}
			out[f] = append([]string(nil), vs...)
		}
	}
	return out
}

package politeness

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"time"
)

// Feedback is what a request's outcome tells the Pacer about its authority;
// it is passed to [Pacer.Release]. The zero Feedback says nothing about the
// server (the request was abandoned before an answer): it frees the slot and
// anchors the next start like any other release, and changes no backoff.
type Feedback struct {
	// Status is the HTTP status code of the response; 0 when there was
	// none.
	Status int
	// RetryAfter is the raw Retry-After header of the response, if any:
	// delta-seconds or an HTTP-date. It is honoured on 429 and 503; a value
	// that is neither form is ignored.
	RetryAfter string
	// Latency is how long the response took, from sending the request to
	// the end of its body; 0 when unknown. Only AutoThrottle reads it.
	Latency time.Duration
	// Err is the error that ended the request, if any: a network error or
	// timeout counts as a failure of the authority; context.Canceled (heed
	// stopping) does not.
	Err error
}

// outcome is how a Feedback changes an authority's pacing.
type outcome uint8

const (
	neutral    outcome = iota // frees the slot only
	success                   // resets the backoff
	failure                   // grows the backoff
	retryAfter                // pauses as the server asked
)

// classify decides the outcome of fb; for retryAfter it also returns the
// pause the server asked for.
func classify(fb Feedback, now time.Time) (outcome, time.Duration) {
	if fb.Status == http.StatusTooManyRequests || fb.Status == http.StatusServiceUnavailable {
		if d, ok := ParseRetryAfter(fb.RetryAfter, now); ok {
			return retryAfter, d
		}
	}
	switch {
	case fb.Err != nil && errors.Is(fb.Err, context.Canceled):
		return neutral, 0
	case fb.Err != nil:
		return failure, 0
	case fb.Status == 0:
		return neutral, 0
	case fb.Status == http.StatusTooManyRequests, fb.Status >= 500:
		return failure, 0
	}
	return success, 0
}

// maxDelaySeconds is the largest delta-seconds that fits a time.Duration.
const maxDelaySeconds = math.MaxInt64 / int64(time.Second)

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3) and
// returns how long after now the server asked the client to wait. Both forms
// are accepted: delta-seconds ("120") and an HTTP-date in any of the three
// formats of net/http.ParseTime. A date in the past gives 0. A delay too large
// for a time.Duration gives the largest one. ok is false for an empty or
// malformed value, which callers should treat as no Retry-After at all.
func ParseRetryAfter(value string, now time.Time) (d time.Duration, ok bool) {
	v := strings.Trim(value, " \t") // HTTP's optional whitespace, nothing else
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		var secs int64
		for i := 0; i < len(v); i++ {
			secs = secs*10 + int64(v[i]-'0')
			if secs > maxDelaySeconds {
				return time.Duration(math.MaxInt64), true
			}
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

package politeness

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// AutoThrottle adapts each authority's interval to the latency of its
// responses, as Scrapy's AutoThrottle extension does: a host that answers
// slowly is asked less often, a fast one more often, and never more often
// than the floor and its Crawl-delay allow. Turn it on with
// [WithAutoThrottle].
//
// # The formula
//
// Each authority has a throttle delay d, starting at
// max(StartDelay, base), where base = max(floor, Crawl-delay) is the
// interval the authority would have without AutoThrottle. Every response
// released with a latency (the time from sending the request to the end of
// its body, [Feedback.Latency]) moves d, exactly as Scrapy does:
//
//	target = latency / TargetConcurrency
//	next   = max(target, (d + target) / 2)
//	next   = max(base, min(next, MaxDelay))
//	d      = next, unless the status is not 200 and next < d
//
// so d moves half-way towards the target on every response, jumps up at
// once when the target is above the mean, and error pages and redirects,
// which are usually small and quick, never make it smaller. The
// authority's interval is then max(base, d): the floor and the Crawl-delay
// stay hard lower bounds (MaxDelay never lowers them), and every invariant
// of the Pacer holds with AutoThrottle on, in particular one request in
// flight for an authority with an interval.
//
// Under a steady latency L, d converges geometrically to
// max(base, min(L/TargetConcurrency, MaxDelay)). Because the next start
// also waits for the previous release (see the package documentation), one
// authority sees at most one request per L + d; a TargetConcurrency above 1
// shortens d, not the one-in-flight rule.
//
// Releases without a latency (no response, a robots.txt fetch, an
// abandoned request) leave d as it is; pauses (Retry-After, backoff) are
// applied as without AutoThrottle.
type AutoThrottle struct {
	// TargetConcurrency is Scrapy's AUTOTHROTTLE_TARGET_CONCURRENCY: the
	// latency is divided by it to get the target delay (default 1).
	TargetConcurrency float64
	// StartDelay is the throttle delay before the first response
	// (default 5 s, as in Scrapy).
	StartDelay time.Duration
	// MaxDelay caps the throttle delay (default 60 s, as in Scrapy); it
	// never lowers the floor or a Crawl-delay.
	MaxDelay time.Duration
}

// Defaults of an AutoThrottle whose fields are zero.
const (
	DefaultThrottleTarget     = 1.0
	DefaultThrottleStartDelay = 5 * time.Second
	DefaultThrottleMaxDelay   = 60 * time.Second
)

// WithAutoThrottle turns AutoThrottle on with the given settings; zero
// fields take their defaults (target 1, start 5 s, max 60 s).
func WithAutoThrottle(at AutoThrottle) Option {
	return func(c *Settings) {
		if at.TargetConcurrency == 0 {
			at.TargetConcurrency = DefaultThrottleTarget
		}
		if at.StartDelay == 0 {
			at.StartDelay = DefaultThrottleStartDelay
		}
		if at.MaxDelay == 0 {
			at.MaxDelay = DefaultThrottleMaxDelay
		}
		c.AutoThrottle = &at
	}
}

func (at *AutoThrottle) validate() error {
	var errs []error
	if !(at.TargetConcurrency > 0) || at.TargetConcurrency > 1e6 {
		errs = append(errs, fmt.Errorf("autothrottle target concurrency %v is not a positive number", at.TargetConcurrency))
	}
	if at.StartDelay < 0 || at.MaxDelay < 0 {
		errs = append(errs, fmt.Errorf("negative autothrottle delay (start %v, max %v)", at.StartDelay, at.MaxDelay))
	}
	return errors.Join(errs...)
}

// Next is the formula: the throttle delay after a response with the given
// latency and status, from delay d, for an authority whose interval
// without AutoThrottle is base.
func (at *AutoThrottle) Next(d, base, latency time.Duration, status int) time.Duration {
	target := time.Duration(float64(latency) / at.TargetConcurrency)
	next := max(target, (d+target)/2)
	next = max(base, min(next, at.MaxDelay))
	if status != http.StatusOK && next < d {
		return d
	}
	return next
}

// start is an authority's first throttle delay.
func (at *AutoThrottle) start(base time.Duration) time.Duration {
	return max(base, at.StartDelay)
}

// throttle applies a released response to the throttle delay and the
// interval; a.mu must be held.
func (a *authority) throttle(cfg *Settings, fb Feedback) {
	at := cfg.AutoThrottle
	if at == nil || fb.Latency <= 0 || fb.Status == 0 || fb.Err != nil {
		return
	}
	base := cfg.intervalFor(a.crawlDelay)
	a.throttleDelay = at.Next(a.throttleDelay, base, fb.Latency, fb.Status)
	a.setInterval(max(base, a.throttleDelay))
}

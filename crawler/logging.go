package crawler

import "github.com/heedcrawl/heed/skiplog"

// What the crawl logs, and where, is the package doc's "Logging".

// gaveUp warns, once per authority and reason, that the crawl gave up an
// authority's URLs: the first of its records says so, with the URLs of
// the authority still queued (they follow with the same reason).
func (r *run) gaveUp(rec *skiplog.Record) {
	if rec.Reason != skiplog.HostUnreachable && rec.Reason != skiplog.RobotsUnreachable {
		return
	}
	if !r.said.First(giveUpKey{rec.Authority, rec.Reason}) {
		return
	}
	attrs := []any{"authority", rec.Authority, "reason", string(rec.Reason), "queued", r.front.Stats().ByAuthority[rec.Authority]}
	if rec.Detail != "" {
		attrs = append(attrs, "detail", rec.Detail)
	}
	if rec.Err != "" {
		attrs = append(attrs, "error", rec.Err)
	}
	r.cfg.logger.Warn("authority given up: its URLs are skip-logged", attrs...)
}

type giveUpKey struct {
	authority string
	reason    skiplog.Reason
}

// callbackKey is the once-key of a callback name with no handler.
type callbackKey string

// exportKey is the once-key of the first export failure.
type exportKey struct{}

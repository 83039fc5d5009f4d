package crawler

import (
	"log/slog"

	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/warnings"
)

// What the crawl logs, and where.
//
// Every record goes to the logger of WithLogger. Without one, warnings
// and errors go to slog's default logger (standard error unless the
// program set another with slog.SetDefault), read at the time of
// logging, and the rest is dropped: mistakes are never silent, and a
// quiet crawl prints nothing. Warnings are said when they happen:
//
//   - a request that failed and will be tried again (URL, try, status or
//     error, next try), and one whose tries are spent;
//   - an authority paused by a 429 or 503 (how long, Retry-After);
//   - a robots.txt that became unreachable (next try, give-up time), and
//     the give-up;
//   - an authority given up (host-unreachable or robots-unreachable),
//     once, with the URLs it still had queued;
//   - the first write error of the skip log and of an exporter (the
//     crawl then fails; later errors are counted, at debug level);
//   - a callback name no handler has, once per name;
//   - a pipeline stage of crawler.Stage whose type never matched an item
//     (see Stage), once.

// defaultLogger is the logger of a crawl without WithLogger: warnings
// and errors to slog's default of the moment (package warnings).
func defaultLogger() *slog.Logger { return warnings.Logger() }

// once says each thing once per crawl (warnings.Once).
type once = warnings.Once

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

package crawler

import (
	"context"
	"log/slog"
	"sync"

	"github.com/heedcrawl/heed/skiplog"
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

// defaultLogger is the logger of a crawl without WithLogger.
func defaultLogger() *slog.Logger {
	return slog.New(warnings{})
}

// warnings is the default handler: slog.Default()'s handler, looked up
// at each record, for records at warning level and above.
type warnings struct {
	wrap []func(slog.Handler) slog.Handler // WithAttrs and WithGroup, in order
}

func (w warnings) handler() slog.Handler {
	h := slog.Default().Handler()
	for _, f := range w.wrap {
		h = f(h)
	}
	return h
}

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.handler().Enabled(ctx, l)
}

func (w warnings) Handle(ctx context.Context, r slog.Record) error {
	return w.handler().Handle(ctx, r)
}

func (w warnings) with(f func(slog.Handler) slog.Handler) warnings {
	return warnings{wrap: append(w.wrap[:len(w.wrap):len(w.wrap)], f)}
}

func (w warnings) WithAttrs(as []slog.Attr) slog.Handler {
	return w.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(as) })
}

func (w warnings) WithGroup(name string) slog.Handler {
	return w.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

// once says each thing once per crawl: the first call of first for a key
// reports true.
type once struct{ seen sync.Map }

func (o *once) first(key any) bool {
	_, loaded := o.seen.LoadOrStore(key, struct{}{})
	return !loaded
}

// gaveUp warns, once per authority and reason, that the crawl gave up an
// authority's URLs: the first of its records says so, with the URLs of
// the authority still queued (they follow with the same reason).
func (r *run) gaveUp(rec *skiplog.Record) {
	if rec.Reason != skiplog.HostUnreachable && rec.Reason != skiplog.RobotsUnreachable {
		return
	}
	if !r.said.first(giveUpKey{rec.Authority, rec.Reason}) {
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

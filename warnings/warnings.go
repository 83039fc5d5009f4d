// Package warnings owns how heed's libraries speak when their user gave
// them no logger, and how they say a thing once.
//
// The model: a library that logs through a *slog.Logger of its user's
// choosing needs a default for the user who chose none. heed's is
// Logger: mistakes are never silent, and a quiet run prints nothing.
// Records at warning level and above go to slog's default logger,
// looked up at each record, so a program that calls slog.SetDefault
// after building a crawler is still heard; the rest is dropped. A
// warning that would repeat for every URL (a misspelt callback name, a
// feed that cannot be written) is said once per run: Once remembers the
// keys already said.
//
// The contract: the Logger and a Once are safe for concurrent use; the
// Logger's WithAttrs and WithGroup apply, in order, to whatever handler
// slog's default has at the time of each record.
//
// The limits: the package decides no level and formats nothing (the
// program's handler does: heed's command line picks it in package cli);
// a Once keeps every key it has seen for as long as it lives.
package warnings

import (
	"context"
	"log/slog"
	"sync"
)

// Logger returns a logger that passes records at warning level and
// above to slog.Default()'s handler, read at the time of each record,
// and drops the rest.
func Logger() *slog.Logger { return slog.New(handler{}) }

// handler is Logger's handler.
type handler struct {
	wrap []func(slog.Handler) slog.Handler // WithAttrs and WithGroup, in order
}

func (w handler) current() slog.Handler {
	h := slog.Default().Handler()
	for _, f := range w.wrap {
		h = f(h)
	}
	return h
}

func (w handler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.current().Enabled(ctx, l)
}

func (w handler) Handle(ctx context.Context, r slog.Record) error {
	return w.current().Handle(ctx, r)
}

func (w handler) with(f func(slog.Handler) slog.Handler) handler {
	return handler{wrap: append(w.wrap[:len(w.wrap):len(w.wrap)], f)}
}

func (w handler) WithAttrs(as []slog.Attr) slog.Handler {
	return w.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(as) })
}

func (w handler) WithGroup(name string) slog.Handler {
	return w.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

// Once says each thing once: the first call of First with a key reports
// true, every later one false. The zero value is ready to use. Keys are
// compared as map keys, so a distinct key type per kind of warning keeps
// kinds apart.
type Once struct{ seen sync.Map }

// First reports whether key is new to o, and remembers it.
func (o *Once) First(key any) bool {
	_, loaded := o.seen.LoadOrStore(key, struct{}{})
	return !loaded
}

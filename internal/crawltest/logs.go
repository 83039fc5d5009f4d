package crawltest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// LogRecord is one record a Logs handler kept: its level, message and
// attributes (groups flattened as "group.key").
type LogRecord struct {
	Level slog.Level
	Msg   string
	Attrs map[string]slog.Value
}

// Attr returns the attribute's value as text, "" when absent.
func (r LogRecord) Attr(key string) string {
	v, ok := r.Attrs[key]
	if !ok {
		return ""
	}
	return v.String()
}

func (r LogRecord) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", r.Level, r.Msg)
	for k, v := range r.Attrs {
		fmt.Fprintf(&b, " %s=%v", k, v)
	}
	return b.String()
}

// Logs is a slog.Handler that keeps every record, for tests that assert
// what a crawl logged. Use Logger for a crawl's WithLogger.
type Logs struct {
	store *logStore // shared with the handlers WithAttrs and WithGroup make
	attrs []slog.Attr
	group string
}

type logStore struct {
	mu      sync.Mutex
	records []LogRecord
}

// NewLogs returns an empty record keeper.
func NewLogs() *Logs { return &Logs{store: &logStore{}} }

// Logger returns a logger at debug level writing to l.
func (l *Logs) Logger() *slog.Logger { return slog.New(l) }

func (l *Logs) Enabled(context.Context, slog.Level) bool { return true }

func (l *Logs) Handle(_ context.Context, r slog.Record) error {
	rec := LogRecord{Level: r.Level, Msg: r.Message, Attrs: make(map[string]slog.Value)}
	add := func(a slog.Attr) { rec.Attrs[l.key(a.Key)] = a.Value.Resolve() }
	for _, a := range l.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	l.store.mu.Lock()
	l.store.records = append(l.store.records, rec)
	l.store.mu.Unlock()
	return nil
}

func (l *Logs) key(k string) string {
	if l.group == "" {
		return k
	}
	return l.group + "." + k
}

func (l *Logs) WithAttrs(as []slog.Attr) slog.Handler {
	c := *l
	c.attrs = append(append([]slog.Attr{}, l.attrs...), as...)
	return &c
}

func (l *Logs) WithGroup(name string) slog.Handler {
	c := *l
	c.group = l.key(name)
	return &c
}

// Records returns the records kept so far, in order.
func (l *Logs) Records() []LogRecord {
	l.store.mu.Lock()
	defer l.store.mu.Unlock()
	return append([]LogRecord(nil), l.store.records...)
}

// Find returns the records whose message contains msg and whose
// attributes have the given values (pairs of key and text).
func (l *Logs) Find(level slog.Level, msg string, kv ...string) []LogRecord {
	var out []LogRecord
next:
	for _, r := range l.Records() {
		if r.Level != level || !strings.Contains(r.Msg, msg) {
			continue
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if r.Attr(kv[i]) != kv[i+1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

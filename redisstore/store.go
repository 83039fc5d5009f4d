package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/frontier"
)

// ErrUnavailable is wrapped by the error of a call that gave up because
// Redis stayed unreachable (connection refused or reset, timeouts, a server
// still loading its data) for longer than the store's retry budget
// ([WithRetryFor]). Nothing the caller passed was taken over: a Push that
// fails with it did not queue the request, and the caller still owns it.
var ErrUnavailable = errors.New("redisstore: redis unavailable")

// Defaults of a Store made by [NewStore] without options.
const (
	// DefaultRetryFor is how long a call keeps retrying while Redis is
	// unreachable ([WithRetryFor]): long enough for a restart.
	DefaultRetryFor = time.Minute
	// maxPrefix bounds the key prefix, which every key repeats.
	maxPrefix = 200
)

// Retry backoff while Redis is unreachable: from the first to the largest
// pause, doubling. The store's calls use it, and so do the loops of its
// users that wait for Redis on their own (a lost subscription).
const (
	RetryFirst = 50 * time.Millisecond
	RetryMax   = 2 * time.Second
	// minAttempt is the least time one attempt is given, however little
	// of the budget is left.
	minAttempt = time.Second
)

// Store is one crawl's place in one Redis database: a client, the key
// prefix that every key of the crawl starts with, and the way calls are
// retried while Redis is unreachable. The frontier, the robots.txt cache,
// the counters and heed's fleet-wide pacer (package politeness/redispacer)
// of one crawl are all made from one Store; every process of the crawl
// makes its own Store with the same prefix.
//
// A Store does not own its client: closing the client is the caller's
// business, after everything made from the Store is closed.
type Store struct {
	rdb      redis.UniversalClient
	prefix   string
	log      *slog.Logger
	retryFor time.Duration
	offset   func() time.Duration

	mu        sync.Mutex
	down      bool      // the last call failed for want of Redis
	downSince time.Time // when it started failing
}

// StoreOption is an optional setting of a Store, passed to [NewStore].
type StoreOption func(*Store)

// WithLogger sets the logger for Redis outages (default slog.Default() at
// the time of logging). The store logs one warning when Redis becomes
// unreachable and one line when it answers again, not one per call.
func WithLogger(l *slog.Logger) StoreOption { return func(s *Store) { s.log = l } }

// WithRetryFor sets how long a call keeps retrying, with backoff from 50 ms
// doubling to 2 s, while Redis is unreachable (default [DefaultRetryFor]).
// Zero tries once. The call's context ends the retries sooner.
func WithRetryFor(d time.Duration) StoreOption { return func(s *Store) { s.retryFor = d } }

// WithTimeOffset adds f() to the Redis server's time wherever the store's
// scripts read the clock. It is for tests, which move a crawl's clock
// forward instead of sleeping; every Store of one crawl must use the same
// offset, and it should only grow.
func WithTimeOffset(f func() time.Duration) StoreOption {
	return func(s *Store) { s.offset = f }
}

// NewStore returns the store of the crawl whose keys start with prefix in
// the database rdb is connected to. The prefix names the crawl: every
// process of one crawl uses the same, and two crawls sharing a database use
// different ones (neither a prefix of the other). It must not be empty or
// contain spaces or control characters; ending it with a colon, as in
// "heed:news:", keeps the key names readable. NewStore does not contact
// Redis.
//
// The Store needs a standalone Redis (or a replicated one, used through its
// primary), version 5 or later: its scripts build key names from the
// prefix, which Redis Cluster does not allow across slots.
func NewStore(rdb redis.UniversalClient, prefix string, opts ...StoreOption) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("redisstore: nil redis client")
	}
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	s := &Store{rdb: rdb, prefix: prefix, retryFor: DefaultRetryFor}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.retryFor < 0 {
		return nil, fmt.Errorf("redisstore: negative retry budget %v", s.retryFor)
	}
	return s, nil
}

func checkPrefix(p string) error {
	switch {
	case p == "":
		return errors.New("redisstore: empty key prefix")
	case len(p) > maxPrefix:
		return fmt.Errorf("redisstore: key prefix longer than %d bytes", maxPrefix)
	case strings.IndexFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("redisstore: key prefix %q has a space or control character", p)
	}
	return nil
}

// Client returns the store's Redis client.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Prefix returns the prefix of every key of the crawl.
func (s *Store) Prefix() string { return s.prefix }

// Key returns the key name made of the prefix and name.
func (s *Store) Key(name string) string { return s.prefix + name }

// Offset returns the time offset scripts add to the Redis server's clock
// (zero unless [WithTimeOffset] was given).
func (s *Store) Offset() time.Duration {
	if s.offset == nil {
		return 0
	}
	return s.offset()
}

// OffsetMicros returns Offset in whole microseconds, the unit of every
// time the store's scripts keep.
func (s *Store) OffsetMicros() int64 { return s.Offset().Microseconds() }

// LocalTime converts a time kept by a script (microseconds of the store's
// clock: Redis server time plus the offset) into this machine's time, given
// the script's own reading of the clock, now. Only the difference of the two
// is used, so a machine whose clock is off by minutes still gets the right
// wait. A zero at means the zero time.
func LocalTime(at, now int64) time.Time {
	if at == 0 {
		return time.Time{}
	}
	return time.Now().Add(time.Duration(at-now) * time.Microsecond)
}

// Micros converts a wait d into whole microseconds, rounding up so that a
// wait is never shortened; a negative d gives 0.
func Micros(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Microsecond - 1) / time.Microsecond)
}

// Now returns the store's clock: Redis server time plus the offset.
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	var t time.Time
	err := s.Do(ctx, "time", func(ctx context.Context) error {
		var err error
		t, err = s.rdb.Time(ctx).Result()
		return err
	})
	if err != nil {
		return time.Time{}, err
	}
	return t.Add(s.Offset()), nil
}

// Ping checks that Redis answers, retrying like every other call.
func (s *Store) Ping(ctx context.Context) error {
	return s.Do(ctx, "ping", func(ctx context.Context) error { return s.rdb.Ping(ctx).Err() })
}

// Do runs fn, which talks to Redis, and runs it again with backoff while it
// fails because Redis is unreachable, for at most the retry budget or until
// ctx ends. It logs when Redis becomes unreachable and when it answers
// again. A reply from Redis, error or not, ends the retries: fn's error is
// returned as is. After the budget the error wraps [ErrUnavailable] and
// fn's last error; op names the call in logs and errors.
//
// fn may run more than once, so it must be safe to repeat: the store's
// scripts are written so that a repeat does no harm beyond what their
// documentation says.
func (s *Store) Do(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	start := time.Now()
	wait := RetryFirst
	for {
		// An attempt may not outlast the budget by much, whatever the
		// client's own retries and timeouts would make of it.
		actx, cancel := context.WithTimeout(ctx, max(s.retryFor-time.Since(start), minAttempt))
		err := fn(actx)
		cancel()
		if err == nil || !transient(err) && !(ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded)) {
			if err == nil || isReply(err) {
				s.markUp()
			}
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("redisstore: %s: %w (while redis was unavailable: %v)", op, ctx.Err(), err)
		}
		s.markDown(op, err)
		left := s.retryFor - time.Since(start)
		if left <= 0 {
			return fmt.Errorf("redisstore: %s: %w: %w", op, ErrUnavailable, err)
		}
		t := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("redisstore: %s: %w (while redis was unavailable: %v)", op, ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, RetryMax)
	}
}

// transient reports whether err means Redis could not be reached or could
// not serve yet, so that trying again later may succeed: a network error
// (refused, reset, timed out, closed by the server), a pool timeout, or a
// server reply saying it is loading, busy or failing over. Anything else,
// a client-side error included, is returned to the caller at once.
func transient(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled) || errors.Is(err, redis.ErrClosed) {
		return false
	}
	if isReply(err) {
		for _, p := range []string{"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "READONLY"} {
			if redis.HasErrorPrefix(err, p) {
				return true
			}
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, os.ErrDeadlineExceeded)
}

// isReply reports whether err is an error reply from the Redis server.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// RetryFor returns the store's retry budget ([WithRetryFor]).
func (s *Store) RetryFor() time.Duration { return s.retryFor }

// Logger returns the logger of the store's crawl: [WithLogger]'s, or
// slog.Default().
func (s *Store) Logger() *slog.Logger {
	if s.log != nil {
		return s.log
	}
	return slog.Default()
}

func (s *Store) markDown(op string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return
	}
	s.down, s.downSince = true, time.Now()
	s.Logger().Warn("redis unreachable; retrying with backoff",
		"prefix", s.prefix, "op", op, "error", err.Error(), "retry_for", s.retryFor)
}

func (s *Store) markUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.down {
		return
	}
	s.down = false
	s.Logger().Info("redis reachable again", "prefix", s.prefix, "down_for", time.Since(s.downSince).Round(time.Millisecond))
}

// Reset deletes every key of the crawl, for tests and for starting a crawl
// over: the frontier, seen set, leases, pacing, robots.txt cache and
// counters of every process. Nothing made from the store should be in use
// meanwhile. It returns the number of keys it deleted (a key SCAN
// reports twice counts twice).
func (s *Store) Reset(ctx context.Context) (int, error) {
	pattern := globEscape(s.prefix) + "*"
	n := 0
	var cursor uint64
	for {
		var keys []string
		next := cursor
		err := s.Do(ctx, "reset", func(ctx context.Context) error {
			var err error
			keys, next, err = s.rdb.Scan(ctx, cursor, pattern, 1000).Result()
			if err != nil || len(keys) == 0 {
				return err
			}
			return s.rdb.Unlink(ctx, keys...).Err()
		})
		if err != nil {
			return n, err
		}
		n += len(keys)
		if next == 0 {
			return n, nil
		}
		cursor = next
	}
}

// globEscape escapes the characters SCAN's MATCH pattern treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// StoredGate is a [frontier.Gate] that keeps each authority's ready time in
// the frontier's own Redis database, so that Next reads it inside its
// script: picking a ready authority and leasing its request is then one
// atomic step with no round trip per authority. heed's fleet-wide pacer,
// politeness/redispacer.Pacer, is one.
//
// Given to a redisfrontier.Frontier with [frontier.WithGate] and made from the same
// Store, it is read in Redis; any other Gate is asked in Go, one round trip
// per candidate authority.
type StoredGate interface {
	frontier.Gate
	// Store returns the store whose database holds the ready times.
	Store() *Store
	// ReadyKeyPrefix returns the prefix of the keys holding ready times:
	// authority a's ready time is field "ready" of the hash at
	// ReadyKeyPrefix()+a, an integer number of microseconds of the
	// store's clock (Redis server time plus [Store.Offset]). A missing
	// key or field, or a time not after now, means ready now.
	ReadyKeyPrefix() string
}

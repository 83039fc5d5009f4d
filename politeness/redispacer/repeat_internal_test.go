package redispacer

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/redisstore/redistest"
)

const repeatSite = "https://example.com"

// replyLoss makes the next run of one script reach Redis and then fail as
// if its reply never came back: with io.EOF (the connection broke, which
// the store retries), or with the caller's context ended after the send.
type replyLoss struct {
	mu     sync.Mutex
	sc     *redis.Script // the script whose reply is lost; nil: none
	cancel context.CancelFunc
	lost   int
}

func (l *replyLoss) arm(sc *redis.Script, cancel context.CancelFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sc, l.cancel = sc, cancel
}

func (l *replyLoss) DialHook(next redis.DialHook) redis.DialHook { return next }
func (l *replyLoss) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (l *replyLoss) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		l.mu.Lock()
		defer l.mu.Unlock()
		args := cmd.Args()
		if err != nil || l.sc == nil || len(args) < 2 || !runs(args, l.sc) {
			return err
		}
		// The script ran in Redis; its caller hears nothing of it.
		l.sc, l.lost = nil, l.lost+1
		if l.cancel != nil {
			l.cancel()
			cmd.SetErr(context.Canceled)
			return context.Canceled
		}
		cmd.SetErr(io.EOF)
		return io.EOF
	}
}

// runs reports whether a command's args run sc, by its hash (EVALSHA) or
// its source (EVAL).
func runs(args []any, sc *redis.Script) bool {
	if args[1] == sc.Hash() {
		return true
	}
	src, ok := args[1].(string)
	sum := sha1.Sum([]byte(src))
	return ok && hex.EncodeToString(sum[:]) == sc.Hash()
}

// newRepeatPacer returns a Pacer whose Redis client loses the replies
// loss is armed for.
func newRepeatPacer(t *testing.T, opts ...Option) (*Pacer, *redis.Client, *replyLoss) {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	loss := &replyLoss{}
	rdb.AddHook(loss)
	quiet := slog.New(slog.DiscardHandler)
	s := redistest.Store(t, rdb, redistest.Prefix(), redisstore.WithLogger(quiet))
	p, err := New(s, append([]Option{WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, rdb, loss
}

// booked returns the starts in flight in Redis for authority, of every
// process.
func booked(t *testing.T, p *Pacer, rdb *redis.Client, authority string) int64 {
	t.Helper()
	n, err := rdb.ZCard(context.Background(), p.keys(authority)[1]).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The acquire script run twice with one token, as the store's retries run
// it when its reply is lost, grants the start both times and books it
// once: the repeat neither refuses the start for its own slot nor moves
// the start anchor.
func TestRepeatedAcquireBooksOnce(t *testing.T) {
	ctx := context.Background()
	p, rdb, _ := newRepeatPacer(t, WithFloor(0), WithConcurrency(1))
	const token = "repeat.1"
	var ls []string
	for i := 0; i < 2; i++ {
		r, err := p.run(ctx, "acquire", tryScript, repeatSite, 1, token, redisstore.Micros(p.cfg.slotTimeout))
		if err != nil || r[0] != 1 {
			t.Fatalf("acquire attempt %d = %v, %v; want booked", i+1, r, err)
		}
		v, err := rdb.HGet(ctx, p.keys(repeatSite)[0], "ls").Result()
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, v)
	}
	if n := booked(t, p, rdb, repeatSite); n != 1 {
		t.Errorf("%d starts booked; want 1", n)
	}
	if ls[0] != ls[1] {
		t.Errorf("the repeat moved the start anchor from %s to %s", ls[0], ls[1])
	}
	// The concurrency of 1 is taken: another token is refused.
	if r, err := p.run(ctx, "acquire", tryScript, repeatSite, 1, "repeat.2", redisstore.Micros(p.cfg.slotTimeout)); err != nil || r[0] != 0 {
		t.Errorf("another token = %v, %v; want refused", r, err)
	}
}

// An acquire whose reply is lost is retried by the store and still hands
// its start to the caller: the start is held (renewed, then released),
// not left booked in Redis with nobody to release it.
func TestAcquireReplyLostIsHeld(t *testing.T) {
	ctx := context.Background()
	p, rdb, loss := newRepeatPacer(t, WithFloor(0), WithConcurrency(1))
	loss.arm(tryScript, nil)
	ok, at, err := p.TryAcquire(ctx, repeatSite)
	if loss.lost != 1 {
		t.Fatalf("%d replies lost; want 1", loss.lost)
	}
	if !ok || err != nil {
		t.Fatalf("TryAcquire with its first reply lost = %v, %v, %v; want ok", ok, at, err)
	}
	if p.Held() != 1 || booked(t, p, rdb, repeatSite) != 1 {
		t.Fatalf("held %d, booked %d; want the one start held", p.Held(), booked(t, p, rdb, repeatSite))
	}
	p.Release(ctx, repeatSite, politeness.Feedback{Status: 200})
	if n := booked(t, p, rdb, repeatSite); n != 0 {
		t.Errorf("after the Release, %d starts booked; want 0", n)
	}
}

// A TryAcquire whose context ends once the acquire was sent returns the
// context's error and leaves no start booked: the authority is not held
// for the whole crawl until the slot timeout.
func TestAcquireCancelledAfterSendBooksNothing(t *testing.T) {
	p, rdb, loss := newRepeatPacer(t, WithFloor(0), WithConcurrency(1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	loss.arm(tryScript, cancel)
	ok, _, err := p.TryAcquire(ctx, repeatSite)
	if loss.lost != 1 {
		t.Fatalf("%d replies lost; want 1", loss.lost)
	}
	if ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("TryAcquire cancelled after the send = %v, %v; want the context's error", ok, err)
	}
	if n := booked(t, p, rdb, repeatSite); n != 0 {
		t.Errorf("%d starts booked after the failed TryAcquire; want 0", n)
	}
	if p.Held() != 0 {
		t.Errorf("Held = %d; want 0", p.Held())
	}
	if ok, _, err := p.TryAcquire(context.Background(), repeatSite); !ok || err != nil {
		t.Errorf("next TryAcquire = %v, %v; want the concurrency free", ok, err)
	}
}

// Freeing a start Redis never booked changes nothing.
func TestUnbookNeverBooked(t *testing.T) {
	ctx := context.Background()
	p, rdb, _ := newRepeatPacer(t, WithFloor(0), WithConcurrency(1))
	if ok, _, err := p.TryAcquire(ctx, repeatSite); !ok || err != nil {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	r, err := p.run(ctx, "unbook", unbookScript, repeatSite, "never.1")
	if err != nil || r[0] != 0 {
		t.Fatalf("unbook of a token never booked = %v, %v; want 0", r, err)
	}
	if n := booked(t, p, rdb, repeatSite); n != 1 {
		t.Errorf("%d starts booked; want the other one still", n)
	}
}

// A release run twice with one token, as the store's retries run it when
// its reply is lost, counts one failure and one request without an
// answer, so a network blip cannot give an authority up at half the
// give-up count.
func TestRepeatedReleaseCountsOnce(t *testing.T) {
	ctx := context.Background()
	p, rdb, loss := newRepeatPacer(t, WithFloor(0), WithConcurrency(1), WithPacing(politeness.WithGiveUp(2)))
	if ok, _, err := p.TryAcquire(ctx, repeatSite); !ok || err != nil {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	loss.arm(releaseScript, nil)
	p.Release(ctx, repeatSite, politeness.Feedback{Err: errors.New("connection reset by peer")})
	if loss.lost != 1 {
		t.Fatalf("%d replies lost; want 1", loss.lost)
	}
	st, err := p.State(ctx, repeatSite)
	if err != nil {
		t.Fatal(err)
	}
	if st.Failures != 1 || st.InFlight != 0 {
		t.Errorf("after one Release sent twice: %d failures, %d in flight; want 1 and 0", st.Failures, st.InFlight)
	}
	sil, err := rdb.HGet(ctx, p.keys(repeatSite)[0], "sil").Result()
	if err != nil || sil != "1" {
		t.Errorf("requests without an answer = %q, %v; want 1", sil, err)
	}
	if _, _, err := p.TryAcquire(ctx, repeatSite); err != nil {
		t.Errorf("TryAcquire after one request without an answer (give-up at 2) = %v; want no give-up", err)
	}

	// The script itself, twice with one token: the second run applies
	// nothing.
	tok := "repeat.9"
	if _, err := rdb.ZAdd(ctx, p.keys(repeatSite)[1], redis.Z{Score: 1 << 60, Member: tok}).Result(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		r, err := p.run(ctx, "release", releaseScript, repeatSite, tok, "f", 0, 0, 0, "s", 0, "reset")
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(1 - i); len(r) < 6 || r[5] != want {
			t.Errorf("release run %d = %v; want %d in its sixth place (applied)", i+1, r, want)
		}
	}
	if st, err := p.State(ctx, repeatSite); err != nil || st.Failures != 2 {
		t.Errorf("State = %+v, %v; want 2 failures (one per released start)", st, err)
	}
}

package redisstore_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/redisstore"
)

// clockScript returns the script's clock as a number and as int writes it.
var clockScript = redis.NewScript(redisstore.ClockLua + `
local now = clock()
return {now, int(now)}
`)

// The clock a script reads is the store's: Redis's time plus the offset in
// force when the call is made, the time Store.Now reports. A test crawl
// that moves its offset forward moves its scripts' clock with it.
func TestClockLuaFollowsTheStoresOffset(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	var off atomic.Int64
	s := newStore(t, rdb, newPrefix(t), redisstore.WithTimeOffset(func() time.Duration {
		return time.Duration(off.Load())
	}))
	for _, d := range []time.Duration{0, 3 * time.Hour, 3*time.Hour + 250*time.Millisecond + 7*time.Microsecond, 48 * time.Hour} {
		off.Store(int64(d))
		before, err := s.Now(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := s.Run(ctx, "clock", clockScript, nil)
		if err != nil {
			t.Fatal(err)
		}
		after, err := s.Now(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := cmd.Slice()
		if err != nil || len(reply) != 2 {
			t.Fatalf("offset %v: reply %v, %v", d, reply, err)
		}
		now, ok := reply[0].(int64)
		if !ok {
			t.Fatalf("offset %v: clock() = %#v, not an integer", d, reply[0])
		}
		if lo, hi := before.UnixMicro(), after.UnixMicro(); now < lo || now > hi {
			t.Errorf("offset %v: clock() = %d, not within Store.Now's %d..%d (Redis time without the offset: %d)",
				d, now, lo, hi, now-d.Microseconds())
		}
		if text, _ := reply[1].(string); text != strconv.FormatInt(now, 10) {
			t.Errorf("offset %v: int(clock()) = %q, want %d", d, text, now)
		}
	}
}

// The helpers read what a script finds missing or malformed as zero, and
// a script's own arguments start at ARGV[2], after the offset.
func TestClockLuaHelpers(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	s := newStore(t, rdb, newPrefix(t))
	key := s.Key("h")
	if err := rdb.HSet(ctx, key, "n", "42").Err(); err != nil {
		t.Fatal(err)
	}
	sc := redis.NewScript(redisstore.ClockLua + `
return {num(redis.call('HGET', KEYS[1], 'n')), num(redis.call('HGET', KEYS[1], 'missing')),
  num(ARGV[2]), num(ARGV[3]), int(tonumber(ARGV[4]))}
`)
	cmd, err := s.Run(ctx, "helpers", sc, []string{key}, "17", "not a number", "1764600000123456")
	if err != nil {
		t.Fatal(err)
	}
	got, err := cmd.Slice()
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(42), int64(0), int64(17), int64(0), "1764600000123456"}
	if len(got) != len(want) {
		t.Fatalf("reply %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply[%d] = %#v, want %#v", i, got[i], want[i])
		}
	}

	// A script's error is Redis's answer: returned as is, not retried.
	_, err = s.Run(ctx, "fails", redis.NewScript(redisstore.ClockLua+`error('bad state')`), nil)
	if err == nil || errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("a failing script: err = %v, want the script's error", err)
	}
}

package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// ClockLua defines what every script of the crawl's state reads time
// with, so that the queue's, the pacer's and the store's own scripts
// agree on one clock: a script begins with it and is run with
// [Store.Run], which passes the store's offset as ARGV[1].
//
//   - clock() returns now on the store's clock, in integer microseconds:
//     Redis's TIME plus ARGV[1], the offset of [WithTimeOffset] (what
//     [Store.Now] reports, read inside the script).
//   - num(v) returns v as a number, or 0 where v is nil, false (a missing
//     key or field) or not a number, so that a stored time or count that
//     was never written reads as zero.
//   - int(n) returns n as a whole decimal string, the way a time is
//     written into a score range, a field or a reply: Lua's own tostring
//     keeps 14 digits and would write a time in microseconds, 16 digits
//     long, as 1.7e+15.
//
// Scripts see the rest of ARGV from ARGV[2] on.
const ClockLua = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[1])
end
local function num(v) return tonumber(v) or 0 end
local function int(n) return string.format('%d', n) end
`

// Run runs sc, a script that begins with [ClockLua], through [Store.Do]
// (op names the call, as there): keys are its KEYS, ARGV[1] is the
// store's offset in microseconds, and args follow from ARGV[2] on. The
// offset is read once per call, so the attempts of a call retried while
// Redis is unreachable all add the same. It returns the reply of the
// attempt that Redis answered.
func (s *Store) Run(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (*redis.Cmd, error) {
	argv := append([]any{s.OffsetMicros()}, args...)
	var cmd *redis.Cmd
	err := s.Do(ctx, op, func(ctx context.Context) error {
		cmd = sc.Run(ctx, s.rdb, keys, argv...)
		return cmd.Err()
	})
	if err != nil {
		return nil, err
	}
	return cmd, nil
}

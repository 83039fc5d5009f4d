package redisstore

import (
	"strconv"
)

// Increments are counter updates made inside another script call instead
// of a round trip of their own: the Redis frontier's Complete applies a
// fetched page's counts (Counters.AddFetched) in the script that ends the
// page's lease, so that a page costs one round trip less and its counts
// are in before its lease ends, atomically with it. A script applies them
// with the Lua function IncrementsLua defines; Args is what it reads.
//
// The zero value holds no update. Increments are built by one goroutine
// and then handed over; they are not safe for concurrent use.
type Increments struct {
	args []any
}

// IncrementsLua defines the Lua function applyIncrements(first, count): it
// applies the count arguments from ARGV[first] on, as Increments.Args
// encodes them, and returns the index of the first argument after them.
// A script that applies Increments includes it and passes Args' length
// before them, so that its other arguments follow at a known place.
const IncrementsLua = `
local function applyIncrements(first, count)
  local i, stop = first, first + count
  while i < stop do
    local op = ARGV[i]
    if op == 'h' then
      redis.call('HINCRBY', ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
      i = i + 4
    elseif op == 's' then
      redis.call('SADD', ARGV[i + 1], ARGV[i + 2])
      i = i + 3
    else
      error('redisstore: unknown increment ' .. tostring(op))
    end
  end
  return stop
end
`

// Args returns the script arguments that carry the updates: per hash
// increment "h", key, field, amount; per set member "s", key, member.
func (inc *Increments) Args() []any {
	if inc == nil {
		return nil
	}
	return inc.args
}

// Len returns the number of script arguments the updates take.
func (inc *Increments) Len() int { return len(inc.Args()) }

func (inc *Increments) hincr(key, field string, n int64) {
	inc.args = append(inc.args, "h", key, field, strconv.FormatInt(n, 10))
}

func (inc *Increments) sadd(key, member string) {
	inc.args = append(inc.args, "s", key, member)
}

// AddFetched adds to inc what Fetched writes: one downloaded response of
// the authority, its body's bytes and its status, crawl-wide and for the
// authority.
func (c *Counters) AddFetched(inc *Increments, authority string, status int, bytes int64) {
	st := statusPrefix + strconv.Itoa(status)
	keys := []string{c.totalKey()}
	if authority != "" {
		inc.sadd(c.authsKey(), authority)
		keys = append(keys, c.authKey(authority))
	}
	for _, key := range keys {
		inc.hincr(key, fieldPages, 1)
		inc.hincr(key, fieldBytes, bytes)
		inc.hincr(key, st, 1)
	}
}

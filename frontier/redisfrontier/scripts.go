package redisfrontier

import (
	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/redisstore"
)

// The frontier's state lives in these keys, all under the store's prefix
// followed by "f:" (F below):
//
//	F meta        hash: the crawl's queue order
//	F seq         counter: the last Seq given out
//	F seen        set: 16-byte fingerprints of every URL admitted or rejected
//	F n           hash: counters (queued, dups, rejects, reclaimed) and the
//	              sequences behind turns and queue heads (turn, front)
//	F byauth      hash: authority -> number of queued requests
//	F q:<a>       sorted set: authority a's queue (see member layout below)
//	F a:<a>       hash: a's leased count, hold (µs), turn (16 hex digits),
//	              and rm, its member in the ready set ("" when not in it)
//	F ready       sorted set, all scores 0: authorities that may be handed
//	              out, as head key (16 bytes) + turn (16 hex) + authority,
//	              so that lexical order is the scheduling order
//	F wait        sorted set: authorities kept only by a hold, by its end
//	F leases      sorted set: lease id -> expiry (µs)
//	F lease       hash: lease id -> token "\n" authority "\n" member
//	F admit       sorted set: tokens of Pushes being admitted -> expiry
//	F ended:<t>   string with a time to live: lease token t was ended by
//	              Done or Retry, so that a repeat of the call (its reply
//	              lost in a Redis failure) succeeds instead of failing
//	F wake        pub/sub channel: "r" (something may be ready), "x" (the
//	              crawl may be exhausted)
//
// A queue member is the request's sort key (16 bytes: priority, depth; see
// sortKey), its Seq as ordered by the queue (16 hex digits), its Seq (16 hex
// digits, the lease id) and its JSON without Seq. Members of one queue never
// tie on the first 32 bytes, so the JSON never decides the order. New
// requests have score 0 and are ordered by member; a retried or reclaimed
// request gets a negative score, lower for later ones, which puts it before
// every new request with the latest first, as the in-memory frontier does.
//
// Times are microseconds of the store's clock, read with clock() of
// redisstore.ClockLua, which every script begins with (so ARGV[1] is the
// store's offset and a script's own arguments start at ARGV[2]). Every
// script takes the key prefix F as KEYS[1].

const luaPrelude = redisstore.ClockLua + `
local F = KEYS[1]
local N, READY, WAIT = F .. 'n', F .. 'ready', F .. 'wait'
local LEASES, LEASE, ADMIT = F .. 'leases', F .. 'lease', F .. 'admit'
local BYAUTH, WAKE = F .. 'byauth', F .. 'wake'

local function hex(n) return string.format('%016x', n) end
local function wake(kind) redis.call('PUBLISH', WAKE, kind) end

-- place puts authority a where it belongs after any change to it: in the
-- ready set when it has a queued request, a free lease and no hold; in the
-- wait set when only its hold keeps it back; in neither otherwise. An
-- authority with nothing queued or leased is forgotten. It returns 1 when
-- a became ready, 2 when it became the earliest waiting authority, else 0.
local function place(a, now, limit)
  local ak = F .. 'a:' .. a
  local st = redis.call('HMGET', ak, 'leased', 'hold', 'turn', 'rm')
  local leased, hold = num(st[1]), num(st[2])
  local turn, rm = st[3] or hex(0), st[4] or ''
  local head = redis.call('ZRANGE', F .. 'q:' .. a, 0, 0)[1]
  local want, at = '', nil
  if head and leased < limit then
    if hold > now then at = hold else want = string.sub(head, 1, 16) .. turn .. a end
  end
  local changed = 0
  if rm ~= want then
    if rm ~= '' then redis.call('ZREM', READY, rm) end
    if want ~= '' then
      redis.call('ZADD', READY, 0, want)
      if rm == '' then changed = 1 end
    end
  end
  if at then
    if redis.call('ZADD', WAIT, 'CH', at, a) == 1 and redis.call('ZRANGE', WAIT, 0, 0)[1] == a then
      changed = 2
    end
  else
    redis.call('ZREM', WAIT, a)
  end
  if not head and leased == 0 then
    redis.call('DEL', ak)
  elseif rm ~= want then
    redis.call('HSET', ak, 'rm', want)
  end
  return changed
end

local function addq(a, member, score)
  redis.call('ZADD', F .. 'q:' .. a, score, member)
  redis.call('HINCRBY', N, 'queued', 1)
  redis.call('HINCRBY', BYAUTH, a, 1)
end

local function delq(a, n)
  redis.call('HINCRBY', N, 'queued', -n)
  if redis.call('HINCRBY', BYAUTH, a, -n) <= 0 then redis.call('HDEL', BYAUTH, a) end
end

-- front queues member at the head of a's queue, before every request
-- queued so far.
local function front(a, member)
  addq(a, member, -redis.call('HINCRBY', N, 'front', 1))
end

local function hold(a, t)
  local ak = F .. 'a:' .. a
  if t > num(redis.call('HGET', ak, 'hold')) then redis.call('HSET', ak, 'hold', int(t)) end
end

local function exhausted(now)
  if num(redis.call('HGET', N, 'queued')) > 0 then return false end
  if redis.call('ZCARD', LEASES) > 0 then return false end
  redis.call('ZREMRANGEBYSCORE', ADMIT, '-inf', now)
  return redis.call('ZCARD', ADMIT) == 0
end

-- lease returns the lease with id as token, authority, member; nil when
-- there is none.
local function lease(id)
  local v = redis.call('HGET', LEASE, id)
  if not v then return nil end
  local i = string.find(v, '\n', 1, true)
  local j = string.find(v, '\n', i + 1, true)
  return string.sub(v, 1, i - 1), string.sub(v, i + 1, j - 1), string.sub(v, j + 1)
end

-- ended reports whether the lease with token tok was already ended by
-- its holder.
local function ended(tok)
  return redis.call('EXISTS', F .. 'ended:' .. tok) == 1
end

local function endLease(id, a)
  redis.call('HDEL', LEASE, id)
  redis.call('ZREM', LEASES, id)
  redis.call('HINCRBY', F .. 'a:' .. a, 'leased', -1)
end
`

// nextScript reclaims expired leases, moves authorities whose hold ended
// to the ready set, and leases the head of the best ready authority.
// ARGV: 2 leases per authority, 3 lease lifetime (µs), 4 lease token,
// 5 key prefix of the stored gate's ready times or "", 6 "1" to peek (a
// gate in Go must be asked first), 7 an authority the Go gate approved or "".
// Returns {1, member, now, ready authorities left} for a lease; {2,
// authority, now} for a peek; {0, earliest, now, exhausted, ready left}
// when nothing may be handed out now (earliest: the next hold end, lease
// expiry or admission expiry; 0 if none).
var nextScript = redis.NewScript(luaPrelude + `
local now, limit, ttl, tok = clock(), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local gate, peek, approved = ARGV[5], ARGV[6] == '1', ARGV[7]

-- Leases whose holder stopped renewing them: the request goes back to the
-- head of its queue, to be handed out again.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', LEASES, '-inf', now, 'LIMIT', 0, 100)) do
  local t, a, member = lease(id)
  if t then
    endLease(id, a)
    front(a, member)
    redis.call('HINCRBY', N, 'reclaimed', 1)
    place(a, now, limit)
  else
    redis.call('ZREM', LEASES, id)
  end
end
for _, a in ipairs(redis.call('ZRANGEBYSCORE', WAIT, '-inf', now, 'LIMIT', 0, 100)) do
  place(a, now, limit)
end

local function take(a)
  local ak = F .. 'a:' .. a
  local member = redis.call('ZPOPMIN', F .. 'q:' .. a)[1]
  delq(a, 1)
  redis.call('HINCRBY', ak, 'leased', 1)
  redis.call('HSET', ak, 'hold', 0, 'turn', hex(redis.call('HINCRBY', N, 'turn', 1)))
  local id = string.sub(member, 33, 48)
  redis.call('ZADD', LEASES, now + ttl, id)
  redis.call('HSET', LEASE, id, tok .. '\n' .. a .. '\n' .. member)
  place(a, now, limit)
  return {1, member, now, redis.call('ZCARD', READY)}
end

if approved ~= '' then
  local rm = redis.call('HGET', F .. 'a:' .. approved, 'rm')
  if rm and rm ~= '' then return take(approved) end
end
for i = 1, 100 do
  local top = redis.call('ZRANGE', READY, 0, 0)[1]
  if not top then break end
  local a = string.sub(top, 33)
  local g = 0
  if gate ~= '' then g = num(redis.call('HGET', gate .. a, 'ready')) end
  if g > now then
    hold(a, g)
    place(a, now, limit)
  elseif peek then
    return {2, a, now}
  else
    return take(a)
  end
end

local earliest = 0
for _, k in ipairs({WAIT, LEASES, ADMIT}) do
  local top = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  if top[2] then
    local t = tonumber(top[2])
    if earliest == 0 or t < earliest then earliest = t end
  end
end
local ex = 0
if exhausted(now) then ex = 1 end
return {0, earliest, now, ex, redis.call('ZCARD', READY)}
`)

// deferScript holds an authority that the Go gate says is not ready.
// ARGV: 2 leases per authority, 3 authority, 4 wait (µs).
var deferScript = redis.NewScript(luaPrelude + `
local now, limit, a = clock(), tonumber(ARGV[2]), ARGV[3]
if redis.call('EXISTS', F .. 'a:' .. a) == 0 then return 0 end
hold(a, now + tonumber(ARGV[4]))
place(a, now, limit)
return 1
`)

// doneLua ends a lease: done(now, leases per authority, lease id, token,
// how long to remember that the token ended (ms)).
// Returns {1, exhausted} when it ended the lease (or had ended it before),
// {0} when there is no such lease, {-1} when the lease belongs to another
// token (it expired and was handed out again).
const doneLua = `
local function done(now, limit, id, tok, ttl)
  if ended(tok) then return {1, 0} end
  local t, a = lease(id)
  if not t then return {0} end
  if t ~= tok then return {-1} end
  endLease(id, a)
  redis.call('SET', F .. 'ended:' .. tok, '1', 'PX', ttl)
  local c = place(a, now, limit)
  if exhausted(now) then
    wake('x')
    return {1, 1}
  end
  if c > 0 then wake('r') end
  return {1, 0}
end
`

// doneScript ends a lease (doneLua).
// ARGV: 2 leases per authority, 3 lease id, 4 token, 5 how long to
// remember that the token ended (ms).
var doneScript = redis.NewScript(luaPrelude + doneLua + `
return done(clock(), tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5])
`)

// retryScript ends a lease and queues the request again at the head of
// its authority's queue, held for a while.
// ARGV: 2 leases per authority, 3 lease id, 4 token, 5 how long to
// remember that the token ended (ms), 6 sort key, 7 JSON, 8 hold (µs from
// now; 0 for none).
// Returns {1} when done (or done before), {0} or {-1} as doneScript.
var retryScript = redis.NewScript(luaPrelude + `
local now, limit, id = clock(), tonumber(ARGV[2]), ARGV[3]
if ended(ARGV[4]) then return {1} end
local t, a, old = lease(id)
if not t then return {0} end
if t ~= ARGV[4] then return {-1} end
endLease(id, a)
redis.call('SET', F .. 'ended:' .. ARGV[4], '1', 'PX', ARGV[5])
front(a, ARGV[6] .. string.sub(old, 17, 48) .. ARGV[7])
local d = tonumber(ARGV[8])
if d > 0 then hold(a, now + d) end
if place(a, now, limit) > 0 then wake('r') end
return {1}
`)

// renewScript extends the leases a process holds.
// ARGV: 2 lease lifetime (µs), then pairs of lease id and token.
// Returns the ids of the leases the process no longer holds.
var renewScript = redis.NewScript(luaPrelude + `
local now, ttl = clock(), tonumber(ARGV[2])
local lost = {}
for k = 3, #ARGV, 2 do
  local t = lease(ARGV[k])
  if t == ARGV[k + 1] then
    redis.call('ZADD', LEASES, 'XX', now + ttl, ARGV[k])
  else
    table.insert(lost, ARGV[k])
  end
end
return lost
`)

// drainScript removes up to a number of an authority's queued requests.
// ARGV: 2 leases per authority, 3 authority, 4 most to remove.
// Returns {exhausted, {member...}} in queue order.
var drainScript = redis.NewScript(luaPrelude + `
local now, limit, a = clock(), tonumber(ARGV[2]), ARGV[3]
local got = redis.call('ZPOPMIN', F .. 'q:' .. a, tonumber(ARGV[4]))
local out = {}
for k = 1, #got, 2 do table.insert(out, got[k]) end
if #out > 0 then delq(a, #out) end
if redis.call('EXISTS', F .. 'a:' .. a) == 1 then place(a, now, limit) end
local ex = 0
if exhausted(now) then
  ex = 1
  wake('x')
end
return {ex, out}
`)

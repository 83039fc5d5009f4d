package redispacer

import (
	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/redisstore"
)

// Each authority's pacing is two keys under the store's prefix followed by
// "pace:" (P below):
//
//	P a:<authority>   hash: ls (last start), lr (last release), pu (paused
//	                  until), cd (Crawl-delay), fail (consecutive failures),
//	                  bo (last backoff), sil (requests in a row without
//	                  any answer), ss and sl (when the first and the last
//	                  of them ended), le (the last one's error), gone (1
//	                  once sil reached the give-up count: for good), and
//	                  ready: the earliest start the
//	                  pause and the anchors allow under the interval of the
//	                  process that last wrote it, 0 while excluded or gone; a
//	                  start refused because another is in flight raises it
//	                  to one interval from then. ready is what heed's Redis
//	                  frontier reads in its own script: a lower bound while
//	                  a start is in flight, exact after its release.
//	P s:<authority>   sorted set: starts in flight, token -> expiry
//
// Times and durations are integer microseconds; times are on the store's
// clock, read with clock() of redisstore.ClockLua, which every script
// begins with (so ARGV[1] is the store's offset). KEYS are {hash, slots}.
// The interval is computed by each script from the caller's floor and cap
// (ARGV[2], ARGV[3]) and the stored Crawl-delay. An authority whose
// interval is above zero has at most one start in flight, whatever the
// concurrency limit (ARGV[4] of tryScript) says; the limit applies to
// authorities with no interval.

const luaPrelude = redisstore.ClockLua + `
local H, S = KEYS[1], KEYS[2]
local FLOOR, CAP = tonumber(ARGV[2]), tonumber(ARGV[3])

local function load()
  local v = redis.call('HMGET', H, 'ls', 'lr', 'pu', 'cd', 'fail', 'bo', 'gone')
  return {ls = num(v[1]), lr = num(v[2]), pu = num(v[3]), cd = num(v[4]), fail = num(v[5]), bo = num(v[6]),
    gone = num(v[7]) == 1}
end

local function excluded(st) return st.cd > CAP end

-- interval is the spacing in force: the floor, or a larger Crawl-delay
-- within the cap.
local function interval(st)
  if not excluded(st) and st.cd > FLOOR then return st.cd end
  return FLOOR
end

-- readyAt is the earliest start the pause and both anchors (the last
-- start and the last release) allow; 0 while excluded and once given up,
-- so that requests reach TryAcquire and are refused at once.
local function readyAt(st)
  if excluded(st) or st.gone then return 0 end
  local t, iv = st.pu, interval(st)
  if iv > 0 then
    if st.lr > 0 and st.lr + iv > t then t = st.lr + iv end
    if st.ls > 0 and st.ls + iv > t then t = st.ls + iv end
  end
  return t
end

-- busyAt is the soonest start of an authority with an interval and a
-- start in flight: that start's release is now or later, and the next
-- start follows the release by the interval, so one interval from now, or
-- later if the pause or an anchor says so. A lower bound: the release
-- decides.
local function busyAt(st, now)
  local t = now + interval(st)
  local nb = readyAt(st)
  if nb > t then t = nb end
  return t
end
`

// tryScript books a start if the authority allows one now.
// ARGV: 4 concurrency, 5 token, 6 slot lifetime.
// Returns {1, 0, now} when booked, {0, retry at, now} when not (retry at 0:
// after the next release), {-1, Crawl-delay, now} when excluded, {-2,
// requests without an answer, first ended, last ended, now} once given up
// (the last error is the hash's le).
//
// It is safe to repeat for one token, as the store's retries do when a
// reply is lost: a token already booked and not expired answers booked
// again and changes nothing (its start was counted when it was booked),
// instead of being refused for its own start in flight.
var tryScript = redis.NewScript(luaPrelude + `
local now = clock()
local held = redis.call('ZSCORE', S, ARGV[5])
if held and tonumber(held) > now then return {1, 0, now} end
local st = load()
if st.gone then
  local v = redis.call('HMGET', H, 'sil', 'ss', 'sl')
  return {-2, num(v[1]), num(v[2]), num(v[3]), now}
end
if excluded(st) then return {-1, st.cd, now} end
local iv, nb = interval(st), readyAt(st)
redis.call('ZREMRANGEBYSCORE', S, '-inf', now)
local n = redis.call('ZCARD', S)
if iv > 0 and n > 0 then
  local at = busyAt(st, now)
  -- The stored ready time is advice for the frontier: raising it to the
  -- soonest possible start keeps every process's frontier from handing
  -- out this authority's requests only to have them refused here. The
  -- release rewrites it from the anchors.
  if at > num(redis.call('HGET', H, 'ready')) then redis.call('HSET', H, 'ready', int(at)) end
  return {0, at, now}
end
if n >= tonumber(ARGV[4]) then
  -- No interval: only a release can tell, unless a pause ends later.
  local at = 0
  if nb > now then at = nb end
  return {0, at, now}
end
if nb > now then return {0, nb, now} end
redis.call('ZADD', S, now + tonumber(ARGV[6]), ARGV[5])
st.ls = now
redis.call('HSET', H, 'ls', int(now), 'ready', int(readyAt(st)))
return {1, 0, now}
`)

// releaseScript ends a start: frees its slot, anchors the next start on
// now, applies the outcome, and counts requests in a row without an answer,
// giving the authority up for good when they reach the give-up count.
// ARGV: 4 token or "", 5 outcome ("n" neutral, "s" success, "f" failure,
// "r" Retry-After), 6 pause for "r", 7 backoff base, 8 backoff max,
// 9 silence ("a" an answer, "s" no answer at all, "" neither), 10 give-up
// count (0: never), 11 the error of a request without an answer.
// Returns {now, paused until, backoff, 1 if this release gave the
// authority up else 0, 1 if it paused the authority later than any pause
// in force else 0, 1 if it applied the outcome else 0}.
//
// It is safe to repeat for one token, as the store's retries do when a
// reply is lost: the outcome, the backoff and the count of requests
// without an answer are applied only by the run whose ZREM removes the
// token, so a repeat (the token gone) only moves the release anchor to
// now, which never starts anything sooner. A release with no token ("")
// cannot tell a repeat and applies its outcome each time; so does nothing
// tell a slot that expired and was cleared by a start of another process
// (its process out of reach of Redis for longer than the slot timeout,
// which Renew logs): that release anchors but its outcome is not counted.
var releaseScript = redis.NewScript(luaPrelude + `
local now = clock()
local st = load()
local booked = ARGV[4] == ''
if not booked then booked = redis.call('ZREM', S, ARGV[4]) == 1 end
if not booked then
  -- A repeat of a release already made: anchor only.
  if now > st.lr then st.lr = now end
  redis.call('HSET', H, 'lr', int(st.lr), 'ready', int(readyAt(st)))
  return {now, st.pu, st.bo, 0, 0, 0}
end
st.lr = now
local was = st.pu
local o = ARGV[5]
if o == 's' then
  st.fail, st.bo = 0, 0
elseif o == 'f' then
  if st.fail < 2147483647 then st.fail = st.fail + 1 end
  local base, mx = tonumber(ARGV[7]), tonumber(ARGV[8])
  local d, i = base, 1
  while i < st.fail and d < mx do
    if d > mx / 2 then d = mx else d = d * 2 end
    i = i + 1
  end
  if d > mx then d = mx end
  st.bo = d
  if now + d > st.pu then st.pu = now + d end
elseif o == 'r' then
  local p = now + tonumber(ARGV[6])
  if p > st.pu then st.pu = p end
end
local gaveUp = 0
if st.gone then
  -- Given up for good: the evidence stays as it was when it happened.
elseif ARGV[9] == 'a' then
  redis.call('HSET', H, 'sil', 0)
elseif ARGV[9] == 's' then
  local sil = redis.call('HINCRBY', H, 'sil', 1)
  if sil == 1 then redis.call('HSET', H, 'ss', int(now)) end
  redis.call('HSET', H, 'sl', int(now), 'le', ARGV[11])
  local limit = tonumber(ARGV[10])
  if limit > 0 and sil >= limit then
    st.gone, gaveUp = true, 1
    redis.call('HSET', H, 'gone', 1)
  end
end
redis.call('HSET', H, 'lr', int(now), 'fail', int(st.fail), 'bo', int(st.bo), 'pu', int(st.pu), 'ready', int(readyAt(st)))
local paused = 0
if st.pu > was then paused = 1 end
return {now, st.pu, st.bo, gaveUp, paused, 1}
`)

// unbookScript frees a start TryAcquire may have booked and could not
// hand to its caller (the reply lost past the retries, or the caller's
// context ended once the script was sent). A token Redis never booked,
// or already freed, changes nothing, so a repeat is harmless. The start
// anchor the booking set stays: it only makes the next start later, never
// sooner. ARGV: 4 token. Returns {1} if it freed a start, else {0}.
var unbookScript = redis.NewScript(luaPrelude + `
if redis.call('ZREM', S, ARGV[4]) == 0 then return {0} end
redis.call('HSET', H, 'ready', int(readyAt(load())))
return {1}
`)

// delayScript records a Crawl-delay. ARGV: 4 Crawl-delay.
// Returns {1} if the authority is now excluded, else {0}.
var delayScript = redis.NewScript(luaPrelude + `
local st = load()
st.cd = tonumber(ARGV[4])
redis.call('HSET', H, 'cd', int(st.cd), 'ready', int(readyAt(st)))
if excluded(st) then return {1} end
return {0}
`)

// readyScript answers when the authority may next start: the stored ready
// time, or, while an authority with an interval has a start in flight,
// the time TryAcquire would give. Returns {ready, now}.
var readyScript = redis.NewScript(luaPrelude + `
local now = clock()
local st = load()
if not excluded(st) and not st.gone and interval(st) > 0 and redis.call('ZCOUNT', S, '(' .. int(now), '+inf') > 0 then
  return {busyAt(st, now), now}
end
return {num(redis.call('HGET', H, 'ready')), now}
`)

// stateScript reads the pacing. Returns {now, ls, lr, pu, cd, fail, bo,
// in flight, interval}.
var stateScript = redis.NewScript(luaPrelude + `
local now = clock()
local st = load()
local n = redis.call('ZCOUNT', S, '(' .. int(now), '+inf')
return {now, st.ls, st.lr, st.pu, st.cd, st.fail, st.bo, n, interval(st)}
`)

// renewScript extends slots. KEYS: slot sets; ARGV: 1 offset, 2 lifetime,
// then one token per key. Returns, per key, 1 if renewed, 0 if the slot
// had expired and is gone.
var renewScript = redis.NewScript(redisstore.ClockLua + `
local now = clock()
local out = {}
for i, k in ipairs(KEYS) do
  out[i] = redis.call('ZADD', k, 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[i + 2])
end
return out
`)

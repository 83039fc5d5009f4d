// Package redisstore is where a heed crawl shared through Redis keeps its
// state: one place for the Redis client, the key prefix that names the
// crawl, the clock every process reads and the way calls wait out an
// unreachable Redis, and for the two pieces of state the whole fleet
// shares besides its queue and its pacing: the robots.txt cache and the
// counters. The queue (package frontier/redisfrontier) and the fleet-wide
// pacer (package politeness/redispacer) are made from the same [Store].
//
// # The model
//
// A crawl lives under a key prefix in one Redis database: every key of the
// crawl starts with it, so several crawls share a database and
// [Store.Reset] deletes one. A [Store] is a process's handle on a crawl;
// every process of the crawl makes its own with the same prefix.
//
// Every operation that must be atomic across processes is one Lua script,
// run by Redis alone. Scripts read the clock with Redis's TIME, so all
// processes share one clock and the machines' clocks do not matter: a time
// kept by a script is integer microseconds of that clock ([Micros]), and
// [LocalTime] turns it back into a wait on this machine's clock.
//
// # Writing a script on the store's clock
//
// The queue's and the pacer's scripts, and any script that keeps a time
// in the crawl's keys, begin with [ClockLua] and are run with [Store.Run].
// A script may then rely on:
//
//   - clock(): now on the store's clock, integer microseconds of Redis's
//     TIME plus the offset of [WithTimeOffset] ([Store.Now] inside the
//     script), so that a test moving its crawl's clock moves every
//     script's;
//   - num(v): a stored number, 0 for a missing key or field;
//   - int(n): a time or count as a whole decimal string, for scores,
//     fields and replies;
//   - ARGV[1] is the offset; the script's own arguments start at ARGV[2].
//
// A script that applies a fetched page's counters inside its own call
// also includes [IncrementsLua] (see [Increments]). Run, like every call,
// goes through [Store.Do], so a script must be safe to repeat.
//
// # When Redis is unavailable
//
// [Store.Do] runs every call: it retries with backoff ([RetryFirst]
// doubling to [RetryMax]) while Redis is unreachable or loading its data,
// for at most the retry budget ([WithRetryFor], default
// [DefaultRetryFor]) or until the call's context ends, and logs once when
// Redis becomes unreachable and once when it answers again. After the
// budget the call fails with an error wrapping [ErrUnavailable]. Leases
// and slots that a process holds are kept alive by [RenewEvery].
//
// # The robots.txt cache and the counters
//
// [RobotsCache] is the robots stage's [middleware.RobotsStore]: it stores
// each authority's latest robots.txt fetch as the stage's own
// [middleware.RobotsRecord] (up to [MaxRobotsBody] bytes of body), and a
// lock taken with SET NX PX, so that one process at a time fetches an
// authority's robots.txt and the others read its record. [Counters] sums
// pages, bytes, statuses and skip reasons, crawl-wide and per authority,
// over all processes.
//
// # What it does not do
//
// It decides nothing: freshness and exclusion are the robots stage's,
// pacing is redispacer's, queueing is redisfrontier's. It needs a
// standalone Redis 5 or later (or the primary of a replicated one): the
// scripts build key names from the prefix, which Redis Cluster does not
// allow. Tests start a private redis-server with package
// redisstore/redistest; see its documentation for HEED_REQUIRE_REDIS,
// which makes a missing server a failure instead of a skip.
package redisstore

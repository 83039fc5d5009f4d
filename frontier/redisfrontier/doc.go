// Package redisfrontier is heed's frontier kept in Redis, so that several
// heed processes, on one machine or many, run one crawl together: one
// queue and one seen set for the crawl. It keeps its keys in the crawl's
// [redisstore.Store], beside the crawl's robots.txt cache and counters
// (package redisstore) and heed's fleet-wide pacer (package
// politeness/redispacer).
//
// # The model
//
// A crawl lives under a key prefix in one Redis database (see package
// redisstore: the [redisstore.Store] is a process's handle on it, with the
// policy for an unreachable Redis). Every process of the crawl makes its
// own Store with the same prefix, and its own Frontier from it.
//
// Every operation that must be atomic across processes is one Lua script,
// run by Redis alone: a Push deduplicates and queues in one step, a Next
// picks an authority and leases its head in one step. Scripts read the
// clock with Redis's TIME, so all processes share one clock and the
// machines' clocks do not matter: a wait that comes from outside (a
// Retry's notBefore, a Gate's ready time) is turned into a duration on the
// caller's clock and added to Redis's time. Stored times are integer
// microseconds.
//
// # The frontier
//
// [Frontier] implements heed's [frontier.Frontier] with the semantics of
// [frontier.Memory], for the whole crawl, and passes the same conformance
// suite:
//
//   - Each authority has a queue, a sorted set whose members are the
//     request's sort key (priority, then depth per [frontier.Order]), its
//     Seq and its JSON, so that Redis's lexical order is heed's queue
//     order. Seq comes from one counter (INCR); the seen set is a set of
//     16-byte [frontier.Fingerprint] values.
//   - Authorities that may be handed out are in a ready set ordered by
//     their head request and, among equals, by when each was last served
//     (round-robin). Authorities held back by a Retry or by the Gate wait
//     in a set ordered by time. Next takes the head of the best ready
//     authority whose lease count is below the limit
//     ([frontier.WithLeasesPerAuthority], counted across the crawl).
//   - A request handed out is leased for the lease timeout
//     ([WithLeaseTimeout], default 30 s), and the Frontier renews its
//     leases in the background until Done or Retry. If a process dies,
//     its leases expire and the next Next of any process puts their
//     requests back at the head of their queues. Nothing is lost; a URL is
//     fetched twice only if its lease expired while it was in flight, and
//     each such lease is counted ([Counts].Reclaimed). A Done or Retry for
//     a lease that was reclaimed returns [ErrLeaseLost].
//   - The Gate: a [redisstore.StoredGate] made from the same Store (heed's
//     redispacer.Pacer) is read inside Next's script, so pacing and
//     leasing are one atomic step. Any other [frontier.Gate] is asked in
//     Go before the lease is taken.
//   - A Next that finds nothing ready waits without polling Redis in a
//     loop: the scripts publish on the crawl's wake-up channel when an
//     authority becomes ready or the crawl may be over, each process
//     relays that to its own blocked Next calls one at a time, and one
//     timer per process wakes a waiter when the earliest hold ends or the
//     poll interval ([WithPollInterval], default 1 s) passes, which bounds
//     what a lost message costs.
//   - The crawl is exhausted, and Next returns [frontier.ErrExhausted] in
//     every process, when nothing is queued or leased anywhere and no Push
//     is in its admission function.
//   - Round trips: [Frontier.PushBatch] pushes a page's links with one
//     script call when a side-effect-free check ([WithCheck]) passes them
//     all (dedup, queueing and the seen set in one atomic step); a link the
//     check refuses, or every link when only an admission function is
//     given, costs one more call per batch, to claim it before the
//     admission function runs. Next, Done and Retry are one call each;
//     [Frontier.Complete] pushes a page's links and ends its lease in
//     the same call, so a fetched page costs one round trip for both.
//
// Drain, Stats and Counts are crawl-wide. Drain empties every process's
// queue: a process that stops alone (one machine of a fleet) should finish
// its leases and Close, not Drain.
//
// # When Redis is unavailable
//
// Every call retries with backoff (50 ms doubling to 2 s) while Redis is
// unreachable or loading its data, for at most the store's retry budget
// ([redisstore.WithRetryFor], default 1 min) or until the call's context ends; the
// store logs once when Redis becomes unreachable and once when it answers
// again. After the budget the call fails with an error wrapping
// [redisstore.ErrUnavailable], and nothing the caller held is lost: a failed Push did
// not queue the request, which the caller still owns; a failed Done or
// Retry keeps the lease, which is still renewed, so the call can be made
// again. A script whose reply was lost in a failure may be run twice:
// Done and Retry remember the leases they ended, so a repeat succeeds
// without a second effect; a repeated Push reports the URL it added as a
// Duplicate; a repeated Next leaves a lease nobody holds, which expires
// and is reclaimed. A Redis that restarts keeps the crawl only if it
// persists its data (an append-only file, ideally with appendfsync
// always); one that restarts empty has lost the crawl.
//
// # Using it
//
// A process of a crawl connects, makes its store, then what it needs:
//
//	opt, err := redis.ParseURL("redis://host:6379/0")
//	rdb := redis.NewClient(opt)
//	s, err := redisstore.NewStore(rdb, "heed:news:")
//	pacer, err := redispacer.New(s, redispacer.WithFloor(time.Second))
//	f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithFrontierOptions(
//		frontier.WithGate(pacer), frontier.WithAdmit(scope.Check)))
//	robots := redisstore.NewRobotsCache(s) // the robots stage's RobotsPolicy.Shared
//
// and then runs heed's crawl loop on f, with pacer as the politeness
// stage's pacer. Close the frontier and the pacer, then the client.
//
// # What it does not do
//
// The package fetches nothing, parses no robots.txt, and decides nothing
// about freshness or exclusion: heed's middleware does. It does not pace
// (package politeness/redispacer does, with the same Store). It needs a standalone Redis 5 or later (or the
// primary of a replicated one): its scripts build key names from the
// prefix, which Redis Cluster does not allow. It never forgets a URL it
// has seen: the seen set costs about 70 bytes per URL in Redis, a queued
// request about 200 more, and a lease ended by Done about 90 for the
// retry budget plus a minute.
//
// Tests start a private redis-server with package redisstore/redistest; see its
// documentation for HEED_REQUIRE_REDIS, which makes a missing server a
// failure instead of a skip.
package redisfrontier

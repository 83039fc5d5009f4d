// Package redispacer paces a heed crawl run by several processes, on one
// machine or many, per authority and fleet-wide: whichever process sends
// them, no two requests to an authority start closer together than its
// interval, and a host's Retry-After or failures slow down every process.
//
// # The model
//
// A [Pacer] has the model and the methods of politeness.Pacer (read that
// package's documentation first): each authority has an interval, the
// larger of the floor ([WithFloor]) and the Crawl-delay its robots.txt asks
// for ([Pacer.SetCrawlDelay], capped by [WithMaxCrawlDelay] with a
// [*politeness.DelayTooLongError] beyond); a start needs the interval to
// have passed since the authority's last start and since its last release
// (anchoring on completion), no pause, and no other request to the
// authority in flight, whichever process sent it; a 429 or 503 with a
// Retry-After header pauses the authority, other failures back it off
// exponentially ([politeness.Feedback] and [politeness.ParseRetryAfter]
// are politeness's own).
//
// An authority that leaves the give-up count of requests in a row
// without any answer (politeness.WithGiveUp through [WithPacing], default
// 5; a network error or a timeout, not an HTTP error status), whichever
// processes sent them, is given up for the whole crawl, as
// politeness.Pacer gives it up in one process: TryAcquire and Wait return
// a [*politeness.UnreachableError] with the failures as evidence (their
// count, when the first and the last ended, the last error), ReadyAt
// answers "now", and heed writes one skip-log record per remaining URL
// (reason host-unreachable) instead of every process trying each URL with
// its retries. An answer of any status resets the count; heed stopping
// does not count. A give-up is for good: each Pacer remembers the ones it
// has seen and answers them without asking Redis.
//
// One request in flight per authority with an interval, fleet-wide, is
// what makes the gap between two arrivals at the server at least the
// interval: the next start, in any process, follows the previous release
// by the interval, whatever the network or a loaded machine does to a
// request between its start and the wire. Spacing starts alone does not:
// two starts an interval apart can reach the server together. Only an
// authority with an interval of zero (floor 0 and no Crawl-delay) may have
// several requests in flight, up to the concurrency limit
// ([WithConcurrency]). While an authority with an interval has a request
// in flight, TryAcquire refuses with, and ReadyAt answers, one interval
// from now (or later if a pause or an anchor says so): the soonest the
// next start could be if the release came at once.
//
// The difference is where the state lives: in Redis, in the crawl's
// [redisstore.Store], shared by every process of the crawl. Booking a
// start is one Lua script: if now is at or after the authority's next
// allowed start and the in-flight rule above allows one more, it records
// the start and the slot; otherwise it answers when to try again. Release is
// another: it frees the slot and anchors the next start on the release.
// Both read the clock with Redis's TIME, so that all processes share one
// clock and the machines' own clocks do not matter.
//
// A slot in flight is a token in a sorted set with an expiry: the Pacer
// that booked it renews it in the background until Release, so a slot
// outlives a slow request but not a process that died mid-request; it
// frees itself after the slot timeout ([WithSlotTimeout], default 30 s).
//
// # Using a Pacer
//
// Make one Pacer per process with [New], from the process's Store, with
// the same settings in every process. Give it to heed's politeness
// middleware stage (it has TryAcquire and Release) and, as the Gate, to
// the Redis frontier of the same Store: the frontier then reads each
// authority's ready time inside its own script (the Pacer is a
// [redisstore.StoredGate]), so it hands out only requests whose
// authority is ready, and TryAcquire rarely has to refuse one.
//
// Every call that asks Redis takes a context, except ReadyAt (the
// frontier's gate has none). While Redis is unreachable, TryAcquire,
// SetCrawlDelay, Wait and State retry for the store's budget or until
// their context ends, then fail with an error wrapping
// [redisstore.ErrUnavailable] or the context's error (TryAcquire books
// nothing, so the request should be put back). Release is not cancelled
// with its context, so that a stopping crawl still frees its slots; it
// retries for at most the slot timeout, then logs (the slot frees itself
// then). ReadyAt, which is only advice, gives up after 2 s and answers
// "ready now".
//
// # What it does not do
//
// The package does not parse robots.txt, queue requests or fetch anything.
// It keeps each authority's pacing for the life of the crawl, as
// politeness.Pacer does (two small keys per authority, deleted by
// [redisstore.Store.Reset]); it has no Snapshot or Restore, since Redis
// is the state.
package redispacer

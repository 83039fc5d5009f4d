// Package politeness paces heed's requests per authority, so that every host
// is fetched as slowly as it asked and no slow or paused host holds up the
// others.
//
// # The model
//
// Every request belongs to an authority, "scheme://host[:port]". The package
// treats authorities as opaque strings: http://a, https://a and https://a:8443
// are three authorities, paced independently.
//
// Each authority has an interval: the larger of the configured floor (default
// 1 s, [WithFloor]) and the Crawl-delay its robots.txt asked for
// ([Pacer.SetCrawlDelay]). A [Pacer] lets a request to an authority start only
// when all of these hold:
//
//   - at least the interval has passed since the previous start (a
//     [golang.org/x/time/rate.Limiter] with burst 1 per authority);
//   - at least the interval has passed since the previous request to the
//     authority completed ([Pacer.Release]);
//   - no other request to the authority is in flight. Together with the
//     completion anchor this makes the gap between two requests arriving
//     at the server at least the interval, whatever the network or the
//     machine's load does to a request between its start and the wire:
//     arrival₂ > start₂ ≥ release₁ + interval > arrival₁ + interval. Start
//     spacing alone does not: two starts an interval apart can reach the
//     server together;
//   - for an authority with an interval of zero, which has no spacing to
//     keep, fewer requests than the concurrency limit (default 1,
//     [WithConcurrency]) are in flight instead;
//   - the authority is not paused. A 429 or 503 response with a Retry-After
//     header pauses it until then (capped by [WithMaxPause], default 10
//     min). A 429 or 503 without Retry-After, any other 5xx and a network
//     error pause it with exponential backoff (default 1 s doubling to 5
//     min, [WithBackoff]); any other response resets the backoff.
//
// With [WithAutoThrottle] the interval also follows each authority's
// latency, as Scrapy's AutoThrottle does; the floor and the Crawl-delay
// stay lower bounds. [AutoThrottle] carries the formula.
//
// An interval of zero (floor 0 and no Crawl-delay) means no spacing at all,
// and is the only case where [WithConcurrency] above 1 lets several requests
// to one authority be in flight.
//
// A Crawl-delay above the cap (default 30 s, [WithMaxCrawlDelay]) does not
// stall the crawl: SetCrawlDelay returns a [*DelayTooLongError], and from
// then on TryAcquire and Wait return that error for the authority, so that
// heed writes a skip-log record (reason crawl-delay-too-long) for each of its
// URLs instead of fetching them. A later SetCrawlDelay within the cap (a
// refreshed robots.txt) lifts the exclusion.
//
// An authority that leaves several requests in a row without any answer
// (default 5, [WithGiveUp]; a network error or a timeout, not an HTTP
// error status) is given up for good: TryAcquire and Wait return an
// [*UnreachableError] for it, ReadyAt answers "now", and heed writes one
// skip-log record per remaining URL (reason host-unreachable) with the
// failures as evidence, instead of trying every URL with its own retries
// and growing backoff. The backoff makes the count span time: with the
// defaults, five silent requests in a row take at least 15 s of pauses
// besides their timeouts.
//
// # No hostage workers
//
// The rule every caller keeps, and heed's engine is built on: no worker
// waits on a host while another host has work ready. A Pacer never blocks
// in TryAcquire; a request that may not start yet goes back to the
// frontier with the time TryAcquire gave, and its worker takes another
// authority's. robots.txt fetches count against an authority's pace like
// any request, but heed's robots stage runs them (and the retries of an
// unreachable one) in a small pool of its own, so a host that accepts
// connections and never answers occupies a place in that pool, never a
// worker; and a host whose pages never answer is given up as a group.
// Only [Pacer.Wait] blocks, for the rare caller that cannot requeue.
//
// # Using a Pacer
//
// A Pacer has three ways to ask about an authority, for three callers:
//
//   - [Pacer.ReadyAt] answers when the authority may next start a request. It
//     never blocks and never books anything; heed's frontier calls it often
//     to pick an authority that is ready now. While an authority with an
//     interval has a request in flight, it answers one interval from now at
//     the soonest, since the next start must follow that request's release.
//     For an authority with no interval it ignores the concurrency limit,
//     because the frontier limits its own leases per authority.
//   - [Pacer.TryAcquire] books a start now if the authority allows one, and
//     otherwise says when to try again, without blocking. This is what most
//     callers want: heed's politeness middleware stage calls it for each
//     request the frontier hands out and, when it fails, gives the request
//     back to the frontier with that time, so no worker ever sleeps on a
//     host.
//   - [Pacer.Wait] blocks until it can book a start, or the context ends.
//     It is for the rare caller that cannot put a request back, such as a
//     redirect hop of a robots.txt fetch.
//
// Every booked start, from TryAcquire or Wait, must be followed by exactly one
// [Pacer.Release] when the response (or error) is in, with [Feedback] saying
// what the server answered: that is what anchors the next start and what
// drives Retry-After and backoff.
//
// [Pacer.State] and [Pacer.Snapshot] report each authority's pacing for
// stats; [Pacer.Busy] reports only the authorities in flight or paused,
// in time proportional to them (a live view's count of active and
// paused hosts); with [WithStartLog], [Pacer.Starts] and
// [Pacer.RecentStarts] give the latest request starts, so a live view
// can show the spacing kept; [Pacer.Restore] loads a snapshot into a new
// Pacer so that a resumed crawl does not burst against hosts it was
// pacing a moment ago.
//
// Every method is safe for concurrent use. Time comes from a [Clock]
// ([WithClock]), so tests drive a Pacer without sleeping.
//
// # What it does not do
//
// The package does not parse robots.txt (heed's robots stage passes the
// Crawl-delay in), does not parse URLs (authorities are opaque), does not
// queue or retry requests (heed's frontier and retry stage do), and does not
// write the skip log. It imports none of heed's packages.
//
// A Pacer keeps one small struct per authority it has seen, for its whole
// life, and never forgets an idle authority: its Crawl-delay, exclusion and
// backoff must outlive idleness, or a host would be hit again at the floor
// rate after a quiet spell.
package politeness

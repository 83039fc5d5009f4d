// Package httpcache is heed's HTTP cache: responses stored on disk, keyed
// by the request's fingerprint, and served again without contacting the
// site, as Scrapy's HTTPCACHE does. It is what makes a scraper's
// development loop cheap: crawl once, then re-run the spider as often as
// it takes on the stored responses, offline, without spending the site's
// patience.
//
// # The model
//
// A [Cache] is a middleware stage ([Cache.Stage]) placed below heed's
// scope, robots and budget stages and above politeness: a request reaches
// the cache only after robots.txt allowed it, so a stored response is never
// served for a URL the robots.txt in force disallows; and a response served
// from the cache never reaches the pacer, so it needs no pacing. What
// reaches the site (a miss, a revalidation) passes politeness like any
// request. [Cache.StageServing] lets the chain see what the cache serves:
// heed's page budget is spent there for a stored page, and below
// politeness for a page that goes to the site, so a URL politeness
// excludes spends nothing.
//
// Each entry holds what the request was (method, URL, the request headers
// its response's Vary names) and what came back (status, headers, body,
// whether the body was cut at the size limit, when it was received). The
// key is frontier.Request.Fingerprint: method, canonical URL, body, and
// kind (a sitemap and a page at one URL are two entries).
//
// A [Policy] decides what an entry is good for:
//
//   - [Replay] (the default of heed's --cache DIR) serves every stored
//     response as it is, however old, without asking the site: the
//     developer's offline loop. It stores every response except 429 and
//     5xx, which say nothing lasting about the page.
//   - [RFC9111] is a private cache as HTTP means it: a response is stored
//     only when RFC 9111 allows (no no-store, a cacheable status or
//     explicit freshness), served while fresh (max-age, Expires, or the
//     Last-Modified heuristic, less the Age it arrived with), and
//     revalidated once stale or marked no-cache: heed sends If-None-Match
//     (the ETag) and If-Modified-Since (Last-Modified), and a 304 refreshes
//     the stored headers and serves the stored body. The cacheability and
//     freshness rules come from github.com/pquerna/cachecontrol.
//
// robots.txt is cached too, so that a replayed crawl reaches the site zero
// times, but a stored robots.txt is never served once it is older than the
// robots max age (heed's 24-hour rule; [WithRobotsMaxAge]), whatever the
// policy says: it is then fetched again, and a changed robots.txt takes
// effect.
//
// # Expiry
//
// [WithMaxAge] is Scrapy's HTTPCACHE_EXPIRATION_SECS: an entry received
// longer ago than the max age is a miss whatever the policy says (under
// RFC9111 the max age caps the freshness HTTP allows, and an expired entry
// is fetched whole, not revalidated); its response replaces the entry.
// 0, the default, never expires an entry. Stats counts the requests that
// found their entry expired (Expired, among Misses).
//
// # Storage
//
// A [Store] keeps entries; [Dir] is the default: plain files under one
// directory, two per entry (KEY.meta, a JSON header, and KEY.body, the
// body as received after decompression), written to temporary files and
// renamed into place, so a crash leaves the old entry or the new one. The
// meta file carries the body's length and CRC-32: a damaged or mismatched
// entry is a miss (logged and counted), never served. Bodies streamed to
// the crawler (sitemaps) are copied to the store as they are read and kept
// only when read to the end.
//
// A Dir opened [WithMaxBytes] keeps its size within the bound: storing an
// entry that takes it past the bound removes the entries received longest
// ago (a meta file's modification time is its entry's ReceivedAt) until
// it is at nine tenths of it; OpenDir prunes first, and every prune
// removes what a crash left (temporary files, bodies without meta files)
// once it is an hour old. An entry is removed meta file first, so a
// reader finds it whole or not at all, and a pruned entry is a plain
// miss: fetched again and stored again. Stats counts the entries pruned
// (Pruned).
//
// # Limits
//
// The cache does not share entries between users and ignores s-maxage
// (it is a private cache); it never serves a stale response (no
// stale-while-revalidate, no stale-if-error). Without WithMaxBytes a
// directory grows until it is deleted; with it, the bound is counted in
// this process between prunes, so processes sharing one directory keep it
// within the bound give or take what the others stored since their last
// prune, and a prune may damage an entry another process is writing at
// that moment (a miss, counted as damaged, stored again). An expired entry
// is not removed when it is found: its replacement overwrites it, or a
// prune does. Request headers other than those a stored response's Vary
// names are not part of an entry's identity.
package httpcache

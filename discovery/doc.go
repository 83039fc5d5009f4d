// Package discovery owns how sitemaps enter a crawl: which sitemaps are
// read (given by the user, listed by robots.txt, /sitemap.xml as a
// fallback, a seed's site), how each is read, and what becomes of every
// entry it lists. Package sitemap parses one document; package crawler
// runs the crawl. This package sits between them and imports neither the
// crawler nor any mode of it: the crawl is an [Engine], four calls wide.
//
// # The model
//
// A sitemap is a frontier.Request of Kind KindSitemap, queued like a page:
// the frontier deduplicates it (a sitemap listed twice, or an index
// listing itself, is read once), and it passes the crawl's whole chain, so
// robots.txt decides on it and the authority's pace applies. At the
// bottom of the chain [Download] streams its body instead of holding it,
// and [Reader.Handle] parses it as it arrives: the child sitemaps of an
// index are queued one level deeper, the pages it lists are queued as
// pages with the sitemap's metadata in Request.Meta (MetaSitemap,
// MetaLastMod, MetaChangeFreq, MetaPriority).
//
// With Config.Seeds a seed is a site: it becomes a probe request for its
// /sitemap.xml, which makes the robots stage fetch the site's robots.txt;
// the probe is then read if it is the fallback or one of the listed
// sitemaps, and dropped by [Reader.Stage] with [ErrProbeUnneeded] (nothing
// to account for) if robots.txt lists others.
//
// # The contract
//
// Every page entry read is, in [Stats], exactly one of queued, already
// known (a duplicate) or skipped; every skipped entry and every sitemap
// not read for a limit or a filter has one skip-log record, written
// through Engine.Skip: sitemap-scope (outside what the sitemap may list),
// invalid-url, sitemap-filter (Config.Refuses, Follows, the rules),
// sitemap-limit (too deep, too many from one authority). The engine keeps
// one record per URL (a URL two sitemaps list, or a sitemap lists and a
// page links to, is recorded once) and accounts for what its frontier
// refuses. A sitemap not read to its end, for any reason (a status, a
// read error, a deadline, a limit), is counted in Stats.Failed or
// Stats.Truncated and described in Stats.Sitemaps with its error; those
// whose pages the crawl may not know are counted in Stats.Incomplete and
// named by Stats.Format. One cut while its body was read has a skip-log
// record for its own URL saying how many entries were read before the
// cut and why the rest were not: fetch-error (a read error, the
// deadline, malformed content), sitemap-limit (50,000 entries, 50 MiB).
// It is not read again: the chain's retry stage retries a sitemap that
// got no response, which the engine skip-logs as fetch-error once the
// tries are spent, not one whose body broke.
//
// The crawl's stop ([Reader.Stop]) cuts every sitemap being read, those
// still waiting for their pace or their response (the request is sent
// by [Reader.Stage] on a context the stop cancels: a server that never
// answers does not hold the stop up for the request's timeout), and
// those whose response comes after it: Handle queues the pages read
// before the cut and returns an [*Interrupted] (the Stage does, for a
// sitemap without a response yet), and the sitemap is counted in
// Stats.Interrupted, not as read nor as incomplete, because
// the engine accounts for the rest: a paused job or a process of a
// shared crawl puts the sitemap back in the queue to be read again from
// its start, a crawl that drains its queue skip-logs it as interrupted.
//
// # Limits
//
// The sitemap package's limits apply to each document (50,000 entries,
// 50 MiB uncompressed); Config bounds the depth of indexes and the
// sitemaps read per authority. Memory does not grow with a sitemap's
// size: entries are handled as they are parsed, and queued 512 at a time.
// The Reader keeps the canonical URL of each sitemap queued, and
// describes at most 1,000 sitemaps one by one in Stats
// (the rest are counted).
package discovery

// Package durable is heed's durable frontier: a [frontier.Frontier] whose
// whole state lives on disk, in an embedded Pebble store in one directory,
// so that a crawl that runs for days survives a pause (SIGINT, then a new
// process) and a crash (kill -9, power loss).
//
// It owns the frontier's state on disk: every authority's queue in its
// order, the seen set of fingerprints, holds from Retry, leases, Seq and the
// counts; and a meta space in which the crawler keeps its own state beside
// it. It schedules exactly as [frontier.Memory] does, and passes the same
// conformance suite (package frontiertest).
//
// # Using it
//
// Open a state directory (created if missing) with the options any
// frontier takes, and use it as a frontier.Frontier:
//
//	f, err := durable.Open(filepath.Join(stateDir, "frontier"),
//		frontier.WithGate(pacer), frontier.WithAdmit(scope))
//	if err != nil { ... }
//	defer f.Close()
//
// A crawl that is resumed opens the same directory: queued requests, the
// seen set and holds are as they were, and requests that were handed out
// by Next but not finished with Done or Retry when the previous process
// stopped are back at the head of their authorities' queues, to be fetched
// again. Nothing else is fetched twice. Stats after Open count them as
// queued.
//
// The crawler pushes the links of one page with [Frontier.PushBatch]: one
// write and one fsync for all of them, where a Push per link waits for an
// fsync each (concurrent Push calls share theirs, but a page's links are
// pushed by one worker).
//
// # What is on disk when
//
//   - Push and PushBatch return Added only after the request, its
//     fingerprint and Seq are fsync'd: a kill -9 or a power loss after that
//     loses none of them.
//   - Next, Done and Retry are each one atomic write, not waited for:
//     they reach disk within milliseconds, and Pebble's log keeps them in
//     order. A crash before that loses the last few of them; what that
//     costs is a request fetched once more (a lost Done) or a Retry's new
//     Attempt and hold (a lost Retry: the lease is still on disk, so the
//     request is queued again all the same). A lost lease is harmless: the
//     request never left its queue.
//   - The counts of duplicate and rejected pushes are written with the next
//     write of any kind.
//   - [Frontier.Sync] waits until all of the above are on stable storage;
//     Close syncs too. [Frontier.PutMeta] and [Frontier.WriteMeta] return
//     once their write is on stable storage.
//
// # Memory
//
// Queues and the seen set stay on disk. In memory are, per authority with
// requests queued or leased: its name, counts, hold and a read-ahead of the
// first requests of its queue (up to 16, fewer when there are more than
// 4,096 authorities, about 64k requests in all); the leases; and Pebble's
// 16 MiB block cache and 4 MiB memtables. A crawl's memory therefore grows
// with its authorities, not its URLs: with a million URLs queued on 1,000
// authorities the process peaked at 74 MiB, against 276 MiB for Memory
// (figures below). A Push of a
// new URL asks the seen set on disk, which a Bloom filter answers mostly
// without reading a block.
//
// # The meta space
//
// [Frontier.PutMeta], [Frontier.GetMeta], [Frontier.DeleteMeta],
// [Frontier.ForEachMeta] and [Frontier.WriteMeta] (a [MetaBatch] applied at
// once) store the caller's keys and values in the same directory; the
// frontier never reads them. Keys are byte strings ordered bytewise, so
// that a prefix names a family. The suggested families for heed's crawler
// are "robots/" + authority for robots.txt cache entries (body, fetch time,
// status), "pace/" + authority for pacing state and "stats/" for its
// counters.
//
// # Status without a crawl
//
// [OpenReader] opens a state read-only (while no process has it open) for
// `heed status`: [Reader.Status] reports the counts, the queue size and
// hold of every authority and the leases left by the last process, from
// per-authority records, without reading the queues; [Reader.Queue] lists
// one authority's queue; the meta space can be read too.
//
// # On-disk layout
//
// The directory is a Pebble store (its own files: MANIFEST, *.log, *.sst,
// OPTIONS, LOCK). Keys start with a byte that says what they hold;
// integers in keys are big-endian so that keys sort as the values do:
//
//	"v"                       format: "heed frontier state" + uvarint version
//	"c"                       the queue order (0 breadth-first, 1 depth-first)
//	"n"                       uvarints: last Seq, last front number, next
//	                          authority id, seen, duplicates, rejected
//	"a" id(4)                 authority: name, queued count, hold (unix ns)
//	"q" id(4) 1 prio(8) depth(8) seq(8)
//	                          a pushed request; prio is inverted (higher
//	                          first); depth and seq inverted for depth-first
//	"q" id(4) 0 ^n(8)         a request put back at the head (Retry, or a
//	                          lease after a crash): the latest first
//	"l" seq(8)                a lease: authority id(4) + the request
//	"s" fingerprint(16)       the seen set (empty value)
//	"m" key                   the caller's meta space
//
// Requests are stored as a version byte (1) and every field of
// frontier.Request as varints and length-prefixed strings, Meta in key
// order. The format version is [FormatVersion]; Open and OpenReader refuse
// another with a [*FormatError], and a directory that is not a heed state
// too. A state's queue order is fixed when it is created: Open with a
// different frontier.WithOrder gives an [*OrderError].
//
// # Performance
//
// Pebble was chosen over bbolt by measurement (see DESIGN.md in this
// directory and the storebench module beside it). Against frontier.Memory
// in the same run (BenchmarkPushNextDone, 1,000,000 URLs queued at once on
// 1,000 authorities, this package's figures on a 2-core machine):
//
//	                      durable     Memory      ratio
//	push, PushBatch(50)   44,794/s    1,163,190/s
//	Next+Done             110,810/s   1,626,017/s
//	whole workload                                0.047
//	disk, 1M queued       59 bytes/URL
//	peak RSS, 1M queued   74 MiB      276 MiB     0.27
//
// A Push per URL waits for an fsync: from 8 goroutines, whose fsyncs are
// shared, 16,342 pushes/s in that run and 4,375/s in another; from one
// goroutine 3,641/s and 965/s. fsync-bound figures vary several-fold from
// run to run on this machine; PushBatch is 10 to 30 times faster than a
// Push per URL in every run. Commands (the default workload is 20,000 URLs):
//
//	HEED_DURABLE_BENCH_URLS=1000000 go test -run='^$' -bench=. -benchtime=1x ./frontier/durable
//
// # What it does not do
//
// It does not let two processes share a state (Open fails while another
// holds it), does not replicate or distribute it, and never forgets a URL:
// the seen set keeps a 17-byte key (fingerprints do not compress) per
// distinct URL for the life of the state. A failed write to disk stops the frontier: every later
// call returns that error. It stores nothing of the crawler's beyond what
// the crawler puts in the meta space.
package durable

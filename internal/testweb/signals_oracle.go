package testweb

// SignalPolicy is what a crawl of the signals site declares.
type SignalPolicy struct {
	// IgnoreNofollow follows the links of pages that say nofollow
	// (honoured by default).
	IgnoreNofollow bool
	// RelNofollow honours rel="nofollow" on single links.
	RelNofollow bool
	// Respect lists the page directives whose pages export no item.
	Respect []string
	// Purposes lists the declared usage categories ("train-ai").
	Purposes []string
}

// SignalSkip is one skip-log record the signals site must produce for
// SignalsAgent, with its evidence: where it was said (Source "meta",
// "header", "link" or "robots.txt"), the statement as written and, for
// meta elements and robots.txt rules, the line.
type SignalSkip struct {
	Host, Path string
	Reason     string
	Page       string // the page that said it, for page directives
	Source     string
	Directive  string
	Statement  string
	Line       int
}

// signalRow is one hand-written expectation and when it applies.
type signalRow struct {
	when func(SignalPolicy) bool
	skip SignalSkip
}

func always(SignalPolicy) bool       { return true }
func nofollowOn(p SignalPolicy) bool { return !p.IgnoreNofollow }
func relOn(p SignalPolicy) bool      { return p.RelNofollow }
func respects(d string) func(SignalPolicy) bool {
	return func(p SignalPolicy) bool { return hasString(p.Respect, d) }
}
func purpose(label string) func(SignalPolicy) bool {
	return func(p SignalPolicy) bool { return hasString(p.Purposes, label) }
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// signalRows is the oracle, written from the hosts' declarations in
// signals.go, never computed by heed. Lines of meta elements count from
// the page's first line: the <meta> a page declares in head is on line 3.
var signalRows = []signalRow{
	// meta: <meta name="robots" content="nofollow"> on /nofollow; its
	// /nf/also is linked from / too and /nf/late from /deeper, so they
	// are fetched and have no record.
	{nofollowOn, SignalSkip{Host: HostMeta, Path: "/nf/only", Reason: "nofollow", Page: "/nofollow", Source: "meta", Directive: "nofollow", Statement: `meta name="robots" content="nofollow"`, Line: 3}},
	// meta for heedbot by name, any case.
	{nofollowOn, SignalSkip{Host: HostMeta, Path: "/agent/only", Reason: "nofollow", Page: "/agent", Source: "meta", Directive: "nofollow", Statement: `meta name="HeedBot" content="nofollow, noarchive"`, Line: 3}},
	// rel="nofollow ugc" is only a hint: followed unless asked.
	{relOn, SignalSkip{Host: HostMeta, Path: "/rel/target", Reason: "rel-nofollow", Page: "/rel", Source: "link", Directive: "nofollow"}},
	// --respect noindex keeps /noindex's items out.
	{respects("noindex"), SignalSkip{Host: HostMeta, Path: "/noindex", Reason: "page-directive", Page: "/noindex", Source: "meta", Directive: "noindex", Statement: `meta name="robots" content="noindex"`, Line: 3}},
	{respects("noarchive"), SignalSkip{Host: HostMeta, Path: "/agent", Reason: "page-directive", Page: "/agent", Source: "meta", Directive: "noarchive", Statement: `meta name="HeedBot" content="nofollow, noarchive"`, Line: 3}},

	// robotstag: the header without and with an agent prefix.
	{nofollowOn, SignalSkip{Host: HostRobotsTag, Path: "/plain/only", Reason: "nofollow", Page: "/plain", Source: "header", Directive: "nofollow", Statement: "X-Robots-Tag: nofollow"}},
	{nofollowOn, SignalSkip{Host: HostRobotsTag, Path: "/agent/only", Reason: "nofollow", Page: "/agent", Source: "header", Directive: "none", Statement: "X-Robots-Tag: heedbot: none"}},
	{respects("noindex"), SignalSkip{Host: HostRobotsTag, Path: "/agent", Reason: "page-directive", Page: "/agent", Source: "header", Directive: "none", Statement: "X-Robots-Tag: heedbot: none"}},
	{respects("noindex"), SignalSkip{Host: HostRobotsTag, Path: "/doc.txt", Reason: "page-directive", Page: "/doc.txt", Source: "header", Directive: "noindex", Statement: "X-Robots-Tag: noindex, noai"}},
	{respects("noarchive"), SignalSkip{Host: HostRobotsTag, Path: "/both", Reason: "page-directive", Page: "/both", Source: "header", Directive: "noarchive", Statement: "X-Robots-Tag: noarchive, unavailable_after: 25 Jun 2030 15:00:00 PST"}},

	// usage: robots.txt Content-Usage. /private/x is disallowed whatever
	// the policy; / takes line 4 (no path), /open/a line 5 (y),
	// /conflict/a lines 6 and 7 (identical paths: the n of line 7 wins),
	// /search/a line 8 (train-ai unknown there: the longest path decides
	// and it says only search=n).
	{always, SignalSkip{Host: HostUsage, Path: "/private/x", Reason: "robots-disallow", Source: "robots.txt", Statement: "Disallow: /private/", Line: 3}},
	{purpose("train-ai"), SignalSkip{Host: HostUsage, Path: "/", Reason: "usage-preference", Source: "robots.txt", Statement: "Content-Usage: train-ai=n", Line: 4}},
	{purpose("train-ai"), SignalSkip{Host: HostUsage, Path: "/conflict/a", Reason: "usage-preference", Source: "robots.txt", Statement: "Content-Usage: /conflict/ train-ai=n", Line: 7}},
	{purpose("search"), SignalSkip{Host: HostUsage, Path: "/search/a", Reason: "usage-preference", Source: "robots.txt", Statement: "Content-Usage: /search/ search=n", Line: 8}},

	// usageheader: the Content-Usage header; a malformed one is unknown.
	{purpose("train-ai"), SignalSkip{Host: HostUsageHeader, Path: "/n", Reason: "usage-preference", Source: "header", Statement: "Content-Usage: train-ai=n"}},
	{purpose("search"), SignalSkip{Host: HostUsageHeader, Path: "/y", Reason: "usage-preference", Source: "header", Statement: "Content-Usage: train-ai=y, search=n"}},
	{purpose("train-ai"), SignalSkip{Host: HostUsageHeader, Path: "/several", Reason: "usage-preference", Source: "header", Statement: `Content-Usage: foo=n, train-ai=n;why="x"`}},
}

// SignalsOracle returns the skip-log records a crawl of the signals site
// from its seeds must write under policy p, in the order of the rows
// above. A page with both a usage-preference and a page-directive reason
// gets the usage-preference one (a crawler checks purposes first).
func SignalsOracle(p SignalPolicy) []SignalSkip {
	var out []SignalSkip
	seen := map[string]bool{}
	for _, pass := range []string{"usage-preference", ""} {
		for _, r := range signalRows {
			if !r.when(p) || (pass != "") != (r.skip.Reason == pass) {
				continue
			}
			key := r.skip.Host + r.skip.Path
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, r.skip)
		}
	}
	return out
}

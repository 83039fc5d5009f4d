package sitemap

import (
	"fmt"
	"strconv"
	"strings"
)

// ProblemKind names one kind of problem found in a sitemap or while walking
// sitemaps. The constants below are the whole vocabulary.
type ProblemKind string

// Problems with the document as a whole. Each of these ends the parse
// early (except ProblemNamespace, ProblemDoctype and ProblemEncoding, which
// are tolerated), and every entry read before it has been delivered.
const (
	// ProblemMalformed: the XML is not well formed; Report.Err holds the
	// *xml.SyntaxError.
	ProblemMalformed ProblemKind = "malformed"
	// ProblemGzip: the gzip stream is corrupt or truncated.
	ProblemGzip ProblemKind = "gzip"
	// ProblemRead: reading the body failed (a network error, say).
	ProblemRead ProblemKind = "read"
	// ProblemUnknownFormat: the content is none of the known formats.
	ProblemUnknownFormat ProblemKind = "unknown-format"
	// ProblemEncoding: a declared or detected character encoding heed
	// cannot read; tolerated (read as UTF-8) where possible.
	ProblemEncoding ProblemKind = "encoding"
	// ProblemNamespace: an element is in the wrong namespace or none;
	// tolerated (elements are matched on local names), reported once per
	// element kind.
	ProblemNamespace ProblemKind = "namespace"
	// ProblemDoctype: a DOCTYPE was ignored; its entities are never
	// expanded.
	ProblemDoctype ProblemKind = "doctype"
	// ProblemTooDeep: elements are nested deeper than any sitemap needs.
	ProblemTooDeep ProblemKind = "too-deep"
	// ProblemTokenTooLarge: one XML token (a text run, a tag, a comment)
	// is larger than any sitemap needs (1 MiB).
	ProblemTokenTooLarge ProblemKind = "token-too-large"
	// ProblemMaxURLs: the document lists more entries than the limit; the
	// first entry past the limit is named and the rest is not read.
	ProblemMaxURLs ProblemKind = "max-urls"
	// ProblemMaxBytes: the uncompressed document is larger than the limit;
	// the rest is not read.
	ProblemMaxBytes ProblemKind = "max-bytes"
)

// Problems with one entry. The entry is still delivered when it has a loc.
const (
	// ProblemMissingLoc: an entry without a loc (or link); not delivered.
	ProblemMissingLoc ProblemKind = "missing-loc"
	// ProblemInvalidURL: the loc is not an absolute http or https URL.
	// The entry is delivered with this Problem.
	ProblemInvalidURL ProblemKind = "invalid-url"
	// ProblemRelativeURL: the loc was relative and was resolved against
	// the sitemap's URL; the entry is delivered without a Problem.
	ProblemRelativeURL ProblemKind = "relative-url"
	// ProblemOutOfScope: the loc is outside the sitemap's scope (see
	// [Scope]). The entry is delivered with this Problem.
	ProblemOutOfScope ProblemKind = "out-of-scope"
	// ProblemLocTooLong: the loc is longer than the limit. The entry is
	// delivered with this Problem and its Loc cut to the limit.
	ProblemLocTooLong ProblemKind = "loc-too-long"
	// ProblemLastMod: a lastmod (or pubDate, updated, publication_date)
	// could not be parsed, or was read leniently (Detail says how); the
	// raw text is kept and the entry still counts.
	ProblemLastMod ProblemKind = "lastmod"
	// ProblemPriority: a priority that is not a number in [0, 1]; ignored.
	ProblemPriority ProblemKind = "priority"
	// ProblemChangeFreq: a changefreq outside the protocol's values; kept.
	ProblemChangeFreq ProblemKind = "changefreq"
	// ProblemFieldTooLong: a text field other than loc was cut to 8 KiB.
	ProblemFieldTooLong ProblemKind = "field-too-long"
	// ProblemExtensionLimit: a <url> has more images, videos, alternates
	// or video tags than kept (1,000 each); the rest are dropped.
	ProblemExtensionLimit ProblemKind = "extension-limit"
	// ProblemEntity: a loc (or link, guid or xhtml:link href) holds an
	// entity reference that is not expanded (one a DOCTYPE defines,
	// external or undefined): the URL it stands for is unknown, so the
	// entry (or alternate) is not delivered. Loc has it as written.
	ProblemEntity ProblemKind = "unexpanded-entity"
	// ProblemAlternateHref: an xhtml:link alternate without an href; not
	// kept.
	ProblemAlternateHref ProblemKind = "alternate-without-href"
	// ProblemUnexpectedElement: a <url> in a sitemap index or a <sitemap>
	// in a urlset; tolerated and delivered with the kind it says.
	ProblemUnexpectedElement ProblemKind = "unexpected-element"
)

// Problems found by [Walk]. They are added to the Report of the sitemap
// that listed the child (or to WalkReport.Problems for a root).
const (
	// ProblemFetch: fetching the sitemap failed; SitemapReport.FetchErr
	// holds the FetchFunc's error.
	ProblemFetch ProblemKind = "fetch"
	// ProblemLoop: a sitemap lists itself or one of the indexes that led
	// to it; not fetched again.
	ProblemLoop ProblemKind = "loop"
	// ProblemDuplicateSitemap: a sitemap already fetched (or queued) in
	// this walk is listed again; not fetched again.
	ProblemDuplicateSitemap ProblemKind = "duplicate-sitemap"
	// ProblemIndexDepth: a child sitemap lies deeper than the depth limit.
	ProblemIndexDepth ProblemKind = "index-depth"
	// ProblemMaxSitemaps: the walk's limit on sitemaps fetched was reached.
	ProblemMaxSitemaps ProblemKind = "max-sitemaps"
)

// Problem is one thing wrong with a sitemap, where it was found, and the
// loc it concerns (cut to 256 characters), if any.
type Problem struct {
	Kind   ProblemKind
	Line   int
	Loc    string
	Detail string
}

// String formats the problem as "line 12: out-of-scope: http://...: detail".
func (p Problem) String() string {
	s := ""
	if p.Line > 0 {
		s = "line " + strconv.Itoa(p.Line) + ": "
	}
	s += string(p.Kind)
	if p.Loc != "" {
		s += ": " + p.Loc
	}
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	return s
}

// Report says what one parse read and what was wrong with it. Problems
// keeps the first problems found (100 by default, see WithMaxProblems);
// Counts counts every problem by kind, kept or not, so a hostile file cannot
// grow a report without bound.
type Report struct {
	// Sitemap is the sitemap's URL as given with WithBase; empty if none.
	Sitemap string
	Format  Format
	// Compressed is true when the content was gzip (detected by its magic
	// bytes, whatever the name says).
	Compressed bool
	// Bytes is the number of uncompressed bytes read.
	Bytes int64

	// Entries counts every entry delivered. URLs and Sitemaps count those
	// delivered without a Problem, by kind; Rejected those with one.
	Entries  int
	URLs     int
	Sitemaps int
	Rejected int

	// Truncated is true when a limit stopped the parse before the end of
	// the document; TruncatedBy is ProblemMaxURLs or ProblemMaxBytes.
	Truncated   bool
	TruncatedBy ProblemKind

	Problems        []Problem
	ProblemsDropped int
	Counts          map[ProblemKind]int

	// Err is the error that ended reading early, if any: malformed XML
	// (*xml.SyntaxError), a corrupt or truncated gzip stream, a read
	// error, an unknown format. Limits are not errors (see Truncated).
	// Every entry read before it has been delivered.
	Err error

	maxProblems int
}

func newReport(base string, maxProblems int) *Report {
	return &Report{Sitemap: base, Counts: make(map[ProblemKind]int), maxProblems: maxProblems}
}

// addProblem records p, keeping at most maxProblems of them.
func (r *Report) addProblem(kind ProblemKind, line int, loc, detail string) {
	r.Counts[kind]++
	if len(r.Problems) >= r.maxProblems {
		r.ProblemsDropped++
		return
	}
	if len(loc) > 256 {
		loc = loc[:256] + "..."
	}
	r.Problems = append(r.Problems, Problem{Kind: kind, Line: line, Loc: loc, Detail: detail})
}

// fail records the error that ended the parse, and its problem: err's
// message without the prefix that says where it came from.
func (r *Report) fail(kind ProblemKind, line int, prefix string, err error) {
	r.Err = err
	r.addProblem(kind, line, "", strings.TrimPrefix(err.Error(), prefix))
}

// String summarises the report in one line.
func (r *Report) String() string {
	s := fmt.Sprintf("%s: %d urls, %d sitemaps, %d rejected, %d problems", r.Format, r.URLs, r.Sitemaps, r.Rejected, len(r.Problems)+r.ProblemsDropped)
	if r.Truncated {
		s += ", truncated by " + string(r.TruncatedBy)
	}
	if r.Err != nil {
		s += ", error: " + r.Err.Error()
	}
	return s
}

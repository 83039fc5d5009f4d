// Package skiplog owns heed's record of every URL the crawler discovered and
// did not fetch: one JSON Lines record per excluded URL, saying why, and for
// robots.txt exclusions the evidence (which file, fetched when, with what
// status, which line and rule of which group decided).
//
// A [Record] is also an error: every stage of heed that excludes a URL
// returns one, and callers branch on it with errors.As. A [Writer] appends
// records to a file and never drops one; a [OnceWriter] is a Writer that
// keeps one record per URL, at a fingerprint's memory per URL; [Merge]
// joins the logs of several processes, one record per URL; a [Summary]
// counts them by reason and by authority.
//
// The package knows nothing about crawling; it imports none of heed's
// packages.
package skiplog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Reason is why a URL was not fetched. The constants below are the whole
// vocabulary; every record carries exactly one.
type Reason string

const (
	// RobotsDisallow: the authority's robots.txt disallows the URL for
	// heed's product token. The record's Robots field says which rule.
	RobotsDisallow Reason = "robots-disallow"
	// RobotsUnreachable: the authority's robots.txt could not be fetched
	// (5xx, 429, timeout, connection or DNS error), which RFC 9309 treats
	// as complete disallow; heed retried and gave up, or the crawl ended
	// first. Status and Err say what was seen.
	RobotsUnreachable Reason = "robots-unreachable"
	// CrawlDelayTooLong: the robots.txt Crawl-delay for heed's group is
	// above the configured cap, so the authority is excluded rather than
	// stalling the crawl.
	CrawlDelayTooLong Reason = "crawl-delay-too-long"
	// Offsite: the URL's host is outside the allowed domains.
	Offsite Reason = "offsite"
	// Depth: the URL is deeper than the maximum depth.
	Depth Reason = "depth"
	// Filter: an include or exclude URL pattern refused the URL.
	Filter Reason = "filter"
	// NoRule: a link found on a page that none of the link rules of the
	// page's handler admits (package linkrule, Scrapy's CrawlSpider
	// rules); Detail names the handler.
	NoRule Reason = "no-rule"
	// MaxPages: the page budget (per authority or in total) was spent.
	MaxPages Reason = "max-pages"
	// RedirectBlocked: a redirect hop's own authority disallows it in its
	// robots.txt, so the redirect was not followed. Robots says which rule.
	RedirectBlocked Reason = "redirect-blocked"
	// RedirectLimit: the redirect chain grew longer than the limit.
	RedirectLimit Reason = "redirect-limit"
	// RedirectLoop: the redirect pointed back into its own chain.
	RedirectLoop Reason = "redirect-loop"
	// InvalidURL: the URL could not be parsed or is not http(s).
	InvalidURL Reason = "invalid-url"
	// HostUnreachable: the URL's authority left several requests in a
	// row without any answer (timeouts, connection errors), so heed gave
	// up its remaining URLs as a group instead of trying each one. Err is
	// the last failure; Detail says how many failed since when.
	HostUnreachable Reason = "host-unreachable"
	// FetchError: every try of the request failed without a response
	// (timeout, connection refused, body over the size limit, ...), or a
	// sitemap's body could not be read to its end (a read error, the
	// timeout, a broken gzip stream, malformed content): Detail then says
	// how many of its entries were read, and accounted for, before the
	// break; the ones past it are unknown to the crawl.
	FetchError Reason = "fetch-error"
	// SitemapFilter: a sitemap entry was refused by the user's sitemap
	// filters (URL pattern, sitemap rules or lastmod); Detail says which.
	// The same URL may still be fetched when a link leads to it.
	SitemapFilter Reason = "sitemap-filter"
	// SitemapScope: a sitemap listed a URL outside what it may list (by
	// default its own scheme, host and port; see sitemap.Scope). Detail
	// names the sitemap and the line.
	SitemapScope Reason = "sitemap-scope"
	// SitemapLimit: a sitemap was not read because a sitemap limit was
	// reached: indexes nested deeper than the limit, or the most sitemaps
	// read from one authority; or it was read only up to a limit of one
	// document (50,000 entries, 50 MiB), with the entries read in Detail.
	// Detail says which.
	SitemapLimit Reason = "sitemap-limit"
	// Interrupted: the crawl stopped (signal or cancelled context) while
	// the URL was still queued, or while the sitemap it names was fetched
	// or read (Detail then counts the entries read).
	Interrupted Reason = "interrupted"
	// Nofollow: the URL was found only on pages that say nofollow (a meta
	// robots element or an X-Robots-Tag header), so it was not followed.
	// Directive says where it was said.
	Nofollow Reason = "nofollow"
	// RelNofollow: the URL was found only in links marked rel="nofollow",
	// and the crawl was asked to honour that hint. Directive names the
	// page.
	RelNofollow Reason = "rel-nofollow"
	// UsagePreference: the page was fetched, but the site's AI usage
	// preference (a robots.txt Content-Usage rule or a Content-Usage
	// header) says n for a purpose the crawl declared, so none of its
	// items was exported. Usage says which statement decided.
	UsagePreference Reason = "usage-preference"
	// PageDirective: the page was fetched, but it says a directive the
	// crawl was asked to respect (noindex, noarchive, ...), so none of its
	// items was exported. Directive says where it was said.
	PageDirective Reason = "page-directive"
)

// Reasons lists every Reason in documentation order.
var Reasons = []Reason{
	RobotsDisallow, RobotsUnreachable, CrawlDelayTooLong, Offsite, Depth,
	Filter, NoRule, MaxPages, RedirectBlocked, RedirectLimit, RedirectLoop,
	InvalidURL, FetchError, HostUnreachable, SitemapFilter, SitemapScope, SitemapLimit,
	Interrupted, Nofollow, RelNofollow, UsagePreference, PageDirective,
}

// Record is one excluded URL. It implements error so that a stage can
// return it; the field set is the JSON Lines schema of the skip log.
type Record struct {
	Time      time.Time `json:"time"`
	URL       string    `json:"url"`
	Authority string    `json:"authority,omitempty"`
	Reason    Reason    `json:"reason"`
	// Detail is a human-readable explanation.
	Detail string `json:"detail,omitempty"`
	// Status is the HTTP status that caused the exclusion, when one did.
	Status int `json:"status,omitempty"`
	// Err is the error that caused the exclusion, when one did.
	Err string `json:"error,omitempty"`
	// Depth and Referrer say where the URL was found.
	Depth    int    `json:"depth,omitempty"`
	Referrer string `json:"referrer,omitempty"`
	// Robots is the robots.txt evidence for robots exclusions.
	Robots *Robots `json:"robots,omitempty"`
	// Directive is the page-level evidence of nofollow, rel-nofollow and
	// page-directive records.
	Directive *Directive `json:"directive,omitempty"`
	// Usage is the evidence of usage-preference records.
	Usage *Usage `json:"usage,omitempty"`
	// URLBytes and ReferrerBytes are the lengths of URL and Referrer
	// when the Writer cut them to MaxURLBytes; 0 when they are whole.
	URLBytes      int `json:"url_bytes,omitempty"`
	ReferrerBytes int `json:"referrer_bytes,omitempty"`
	// URLSHA256 is the hex SHA-256 of the whole URL when it was cut, so
	// that the record still names one URL (see Key).
	URLSHA256 string `json:"url_sha256,omitempty"`
}

// Key returns what identifies the record's URL, whole or cut: KeyOf of
// the whole URL, which a record read back after the Writer cut its URL
// still gives (from URLSHA256).
func (r *Record) Key() string {
	if r.URLSHA256 != "" {
		return "sha256:" + r.URLSHA256
	}
	return KeyOf(r.URL)
}

// KeyOf returns the Key a record of url has once written.
func KeyOf(url string) string {
	if len(url) <= MaxURLBytes {
		return url
	}
	sum := sha256.Sum256([]byte(url))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// MaxURLBytes is the most of a URL (or a referrer) a record stores: a
// link of 100 KiB must not make a skip-log line of 100 KiB. A record of a
// longer URL keeps its first MaxURLBytes bytes and says how long the URL
// was (URLBytes, ReferrerBytes).
const MaxURLBytes = 4096

// capped returns r, or a copy of it with its URL and referrer cut to
// MaxURLBytes and their lengths recorded.
func (r *Record) capped() *Record {
	if len(r.URL) <= MaxURLBytes && len(r.Referrer) <= MaxURLBytes {
		return r
	}
	c := *r
	if len(c.URL) > MaxURLBytes {
		sum := sha256.Sum256([]byte(c.URL))
		c.URLBytes, c.URLSHA256, c.URL = len(c.URL), hex.EncodeToString(sum[:]), c.URL[:MaxURLBytes]
	}
	if len(c.Referrer) > MaxURLBytes {
		c.ReferrerBytes, c.Referrer = len(c.Referrer), c.Referrer[:MaxURLBytes]
	}
	return &c
}

// Directive is where a page said what excluded a URL or its items.
type Directive struct {
	// Page is the URL of the page that said it.
	Page string `json:"page"`
	// Source is "meta", "header" or, for rel-nofollow, "link".
	Source string `json:"source"`
	// Directive is the directive that applied, as named ("nofollow",
	// "none", "noindex").
	Directive string `json:"directive"`
	// Statement is the meta element, the header line or the link, as
	// written.
	Statement string `json:"statement"`
	// Line is the line of the meta element in the page; 0 for a header.
	Line int `json:"line,omitempty"`
}

// Usage is which statement of AI usage preference withheld a page's
// items.
type Usage struct {
	// Purpose is the declared purpose ("train-ai") the site said n to.
	Purpose string `json:"purpose"`
	// Source is "robots.txt" or "header".
	Source string `json:"source"`
	// URL is the robots.txt URL for a robots.txt rule.
	URL string `json:"url,omitempty"`
	// Line is the robots.txt line of the rule; 0 for a header.
	Line int `json:"line,omitempty"`
	// Rule is the robots.txt rule as written, or the header as received.
	Rule string `json:"rule"`
}

// Robots is the robots.txt evidence of a record: which file decided, when
// it was fetched and with what status, and which rule of which group.
type Robots struct {
	// URL is the robots.txt URL of the URL's authority.
	URL string `json:"url"`
	// FetchedAt is when that robots.txt was fetched.
	FetchedAt time.Time `json:"fetched_at"`
	// Status is the HTTP status of the fetch (of the last redirect hop);
	// 0 when no response was received.
	Status int `json:"status"`
	// Line is the 1-based line of the deciding rule; 0 when no rule
	// decided (for example a robots.txt that could not be fetched).
	Line int `json:"line,omitempty"`
	// Rule is the deciding directive as written in the file.
	Rule string `json:"rule,omitempty"`
	// Group lists the user-agent values of the group that applied; ["*"]
	// for the catch-all group, empty when no group applied.
	Group []string `json:"group,omitempty"`
	// GroupLines are the line numbers of those user-agent lines.
	GroupLines []int `json:"group_lines,omitempty"`
}

// Error describes the exclusion.
func (r *Record) Error() string {
	msg := fmt.Sprintf("%s: %s", r.Reason, r.URL)
	if r.Robots != nil && r.Robots.Line > 0 {
		msg += fmt.Sprintf(" (%s line %d: %q)", r.Robots.URL, r.Robots.Line, r.Robots.Rule)
	}
	if d := r.Directive; d != nil {
		msg += fmt.Sprintf(" (%q in %s of %s)", d.Directive, d.Source, d.Page)
	}
	if u := r.Usage; u != nil {
		if u.Line > 0 {
			msg += fmt.Sprintf(" (%s=n: %s line %d: %q)", u.Purpose, u.URL, u.Line, u.Rule)
		} else {
			msg += fmt.Sprintf(" (%s=n: %s %q)", u.Purpose, u.Source, u.Rule)
		}
	}
	if r.Detail != "" {
		msg += ": " + r.Detail
	}
	return msg
}

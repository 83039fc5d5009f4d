package inventory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/sitemap"
	"github.com/heedcrawl/heed/skiplog"
)

// maxListed is how many disallowed and duplicate URLs an Summary
// lists one by one; the rest are counted.
const maxListed = 10_000

// Summary is what an inventory read, and what it found.
type Summary struct {
	// Sites are the sites asked for, one per authority, in order.
	Sites []Site `json:"sites"`
	// Sitemaps are the sitemaps read or tried, in the order they were.
	Sitemaps []Sitemap `json:"sitemaps"`
	// Read counts sitemaps fetched and parsed; Unreadable those that could
	// not be fetched or parsed to the end (a status, a network error, an
	// unreachable robots.txt, malformed content); Excluded those heed did
	// not fetch by rule (robots.txt, a follow pattern, a Crawl-delay over
	// the cap); Missing the /sitemap.xml fallbacks that do not exist.
	Read, Unreadable, Excluded, Missing int
	// URLs counts rows; Unique distinct URLs; Duplicates rows whose URL an
	// earlier row listed, CrossDuplicates those listed earlier by another
	// sitemap.
	URLs, Unique, Duplicates, CrossDuplicates int
	// Disallowed counts rows robots.txt does not allow (robots-disallow,
	// robots-unreachable): URLs a site lists but asks not to be fetched.
	// DisallowedURLs lists the first 10,000 of them.
	Disallowed     int   `json:"disallowed"`
	DisallowedURLs []Row `json:"disallowed_urls,omitempty"`
	// DuplicateURLs lists the first 10,000 repeated listings.
	DuplicateURLs []Duplicate `json:"duplicate_urls,omitempty"`
	// Problems counts rows with a sitemap problem (out of scope, invalid);
	// Filtered the entries the sitemap filters refused (no row; skip-logged).
	Problems, Filtered int
	// LastMod describes the lastmod values of the distinct URLs.
	LastMod LastModSummary `json:"lastmod"`
	// Agents are the verdict counts per agent of an inventory of several
	// agents (NewForAgents), in their order; nil for one agent, whose
	// counts are Disallowed.
	Agents []AgentCount `json:"agents,omitempty"`
	// Skipped summarises the skip log.
	Skipped skiplog.Summary `json:"skipped"`
	// SkipLog is false when the inventory wrote no skip log (no
	// WithSkipLog): Format then does not point to one.
	SkipLog bool `json:"-"`
	// Interrupted is true when the context ended before the inventory did.
	Interrupted bool `json:"interrupted,omitempty"`
}

// AgentCount is how many rows robots.txt allows and disallows
// (robots-disallow, robots-unreachable) for one agent.
type AgentCount struct {
	Agent      string `json:"agent"`
	Allowed    int    `json:"allowed"`
	Disallowed int    `json:"disallowed"`
}

// Site is one site of an inventory and its robots.txt.
type Site struct {
	Site      string `json:"site"`
	Authority string `json:"authority"`
	// RobotsURL, RobotsState ("available", "unavailable", "unreachable"),
	// RobotsStatus and RobotsErr describe its robots.txt.
	RobotsURL    string `json:"robots_url,omitempty"`
	RobotsState  string `json:"robots_state,omitempty"`
	RobotsStatus int    `json:"robots_status,omitempty"`
	RobotsErr    string `json:"robots_error,omitempty"`
	// Sitemaps are the sitemaps its robots.txt lists, or its /sitemap.xml
	// when Fallback is true.
	Sitemaps []string `json:"sitemaps,omitempty"`
	Fallback bool     `json:"fallback,omitempty"`
	// Err says why the site could not be read at all (not a URL).
	Err string `json:"error,omitempty"`
}

// Sitemap is one sitemap an inventory read or tried to.
type Sitemap struct {
	URL string `json:"url"`
	// Site is the authority whose robots.txt led to it; "" for a sitemap
	// given with WithSitemaps (or listed by one).
	Site string `json:"site,omitempty"`
	// Parent is the index that listed it; Depth its level below a root.
	Parent string `json:"parent,omitempty"`
	Depth  int    `json:"depth"`
	Format string `json:"format,omitempty"`
	// Compressed is true for gzip content; Bytes is the size uncompressed.
	Compressed bool  `json:"compressed,omitempty"`
	Bytes      int64 `json:"bytes,omitempty"`
	// URLs counts the page entries listed without a problem, Sitemaps the
	// child sitemaps, Rejected the entries with a problem, Duplicates the
	// rows whose URL an earlier row listed.
	URLs       int `json:"urls"`
	Sitemaps   int `json:"sitemaps,omitempty"`
	Rejected   int `json:"rejected,omitempty"`
	Duplicates int `json:"duplicates,omitempty"`
	// TruncatedBy is "max-urls" or "max-bytes" when a limit cut it.
	TruncatedBy string `json:"truncated_by,omitempty"`
	// NotRead is the skip-log reason when heed did not read it, with the
	// robots.txt evidence for robots-disallow.
	NotRead skiplog.Reason  `json:"not_read,omitempty"`
	Robots  *skiplog.Robots `json:"robots,omitempty"`
	// Status is the HTTP status of a fetch answered with another than
	// 2xx; Missing is true for a /sitemap.xml fallback answered 404 or 410.
	Status  int  `json:"status,omitempty"`
	Missing bool `json:"missing,omitempty"`
	// Err says what went wrong, if anything.
	Err string `json:"error,omitempty"`
}

// Duplicate is a URL listed again: First is the sitemap that
// listed it first, Again the one that listed it again.
type Duplicate struct {
	URL   string `json:"url"`
	First string `json:"first"`
	Again string `json:"again"`
}

// Complete reports whether every sitemap found was read and every site's
// robots.txt was known: the rows are the whole inventory.
func (s *Summary) Complete() bool {
	if s.Interrupted || s.Unreadable > 0 {
		return false
	}
	for _, site := range s.Sites {
		if site.Err != "" {
			return false
		}
	}
	return true
}

// count accounts for a row before it is delivered.
func (iv *inventoryRun) count(row *Row) {
	s := iv.sum
	s.URLs++
	iv.inv.rows.Add(1)
	fp := frontier.NewFingerprint("", row.URL)
	if first, ok := iv.seen[fp]; ok {
		row.Duplicate = true
		s.Duplicates++
		if first != row.Sitemap {
			s.CrossDuplicates++
		}
		iv.dupBy[row.Sitemap]++
		if len(s.DuplicateURLs) < maxListed {
			s.DuplicateURLs = append(s.DuplicateURLs, Duplicate{URL: row.URL, First: first, Again: row.Sitemap})
		}
	} else {
		iv.seen[fp] = row.Sitemap
		s.Unique++
		s.LastMod.add(row)
	}
	if len(row.Verdicts) > 0 && s.Agents == nil {
		for _, v := range row.Verdicts {
			s.Agents = append(s.Agents, AgentCount{Agent: v.Agent})
		}
	}
	for i, v := range row.Verdicts {
		switch {
		case v.Allowed:
			s.Agents[i].Allowed++
		case v.Reason == skiplog.RobotsDisallow || v.Reason == skiplog.RobotsUnreachable:
			s.Agents[i].Disallowed++
		}
	}
	if row.Problem != "" {
		s.Problems++
	}
	if row.Reason == skiplog.RobotsDisallow || row.Reason == skiplog.RobotsUnreachable {
		s.Disallowed++
		iv.inv.forbidden.Add(1)
		if len(s.DisallowedURLs) < maxListed {
			s.DisallowedURLs = append(s.DisallowedURLs, *row)
		}
	}
}

// account adds one walk's sitemaps to the summary and skip-logs the child
// sitemaps the walk's limits left unread.
func (iv *inventoryRun) account(site string, rep *sitemap.WalkReport, fallback bool) {
	limit := func(problems []sitemap.Problem) {
		for _, p := range problems {
			if (p.Kind == sitemap.ProblemIndexDepth || p.Kind == sitemap.ProblemMaxSitemaps) && p.Loc != "" {
				iv.skip(&skiplog.Record{URL: p.Loc, Reason: skiplog.SitemapLimit, Detail: p.String()})
			}
		}
	}
	limit(rep.Problems)
	for _, sr := range rep.Sitemaps {
		limit(sr.Problems)
		if errors.Is(sr.FetchErr, errReadBefore) {
			continue // its rows were written under the site that listed it first
		}
		s := Sitemap{URL: sr.URL, Site: site, Parent: sr.Parent, Depth: sr.Depth,
			URLs: sr.URLs, Sitemaps: sr.Sitemaps, Rejected: sr.Rejected}
		if c, err := frontier.Canonicalize(sr.URL); err == nil {
			s.URL = c
		}
		s.Duplicates = iv.dupBy[s.URL]
		var rec *skiplog.Record
		var status *SitemapStatusError
		switch {
		case sr.FetchErr == nil:
			s.Format, s.Compressed, s.Bytes = sr.Format.String(), sr.Compressed, sr.Bytes
			if sr.Truncated {
				s.TruncatedBy = string(sr.TruncatedBy)
			}
			if sr.Err != nil {
				s.Err = sr.Err.Error()
				iv.sum.Unreadable++
			} else {
				iv.sum.Read++
			}
		case errors.As(sr.FetchErr, &rec):
			s.NotRead, s.Robots, s.Err = rec.Reason, rec.Robots, rec.Error()
			switch rec.Reason {
			case skiplog.RobotsDisallow, skiplog.RedirectBlocked, skiplog.SitemapFilter, skiplog.CrawlDelayTooLong:
				iv.sum.Excluded++
			default:
				iv.sum.Unreadable++
			}
		case errors.As(sr.FetchErr, &status) && fallback && sr.Depth == 0 &&
			(status.Status == http.StatusNotFound || status.Status == http.StatusGone):
			s.Missing, s.Status, s.Err = true, status.Status, status.Error()
			iv.sum.Missing++
		default:
			if errors.As(sr.FetchErr, &status) {
				s.Status = status.Status
			}
			s.Err = sr.FetchErr.Error()
			if !errors.Is(sr.FetchErr, context.Canceled) {
				iv.sum.Unreadable++
			}
		}
		iv.sum.Sitemaps = append(iv.sum.Sitemaps, s)
	}
}

// Format writes the summary for people: sitemaps with their counts,
// duplicates, and the URLs sitemaps list but robots.txt disallows, each
// with its deciding line and rule.
func (s *Summary) Format(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "inventory: %d sites, %d sitemaps read", len(s.Sites), s.Read)
	if s.Unreadable > 0 {
		fmt.Fprintf(bw, ", %d unreadable", s.Unreadable)
	}
	if s.Excluded > 0 {
		fmt.Fprintf(bw, ", %d not read by rule", s.Excluded)
	}
	fmt.Fprintf(bw, "; %d URLs listed (%d distinct)\n", s.URLs, s.Unique)
	for _, site := range s.Sites {
		switch {
		case site.Err != "":
			fmt.Fprintf(bw, "  site %s: %s\n", site.Site, site.Err)
		case site.RobotsState == "unreachable":
			why := fmt.Sprintf("status %d", site.RobotsStatus)
			if site.RobotsErr != "" {
				why = site.RobotsErr
			}
			fmt.Fprintf(bw, "  site %s: robots.txt unreachable (%s): its sitemaps are unknown\n", site.Authority, why)
		case len(site.Sitemaps) == 0:
			fmt.Fprintf(bw, "  site %s: robots.txt lists no sitemap\n", site.Authority)
		}
	}
	if len(s.Sitemaps) > 0 {
		fmt.Fprintln(bw, "sitemaps:")
	}
	for _, sm := range s.Sitemaps {
		indent := "  "
		for range sm.Depth {
			indent += "  "
		}
		switch {
		case sm.Missing:
			fmt.Fprintf(bw, "%s%s: none (answered %d %s)\n", indent, sm.URL, sm.Status, http.StatusText(sm.Status))
		case sm.NotRead != "":
			fmt.Fprintf(bw, "%s%s: not read: %s", indent, sm.URL, sm.NotRead)
			if sm.Robots != nil && sm.Robots.Line > 0 {
				fmt.Fprintf(bw, " (%s line %d: %s)", sm.Robots.URL, sm.Robots.Line, sm.Robots.Rule)
			}
			fmt.Fprintln(bw)
		case sm.Format == "" && sm.Err != "":
			fmt.Fprintf(bw, "%s%s: not read: %s\n", indent, sm.URL, sm.Err)
		default:
			fmt.Fprintf(bw, "%s%s: %s, %d URLs", indent, sm.URL, sm.Format, sm.URLs)
			if sm.Sitemaps > 0 {
				fmt.Fprintf(bw, ", %d sitemaps", sm.Sitemaps)
			}
			if sm.Duplicates > 0 {
				fmt.Fprintf(bw, ", %d listed before", sm.Duplicates)
			}
			if sm.Rejected > 0 {
				fmt.Fprintf(bw, ", %d rejected", sm.Rejected)
			}
			if sm.TruncatedBy != "" {
				fmt.Fprintf(bw, ", TRUNCATED (%s)", sm.TruncatedBy)
			}
			if sm.Err != "" {
				fmt.Fprintf(bw, ", ERROR: %s", sm.Err)
			}
			fmt.Fprintln(bw)
		}
	}
	if s.Duplicates > 0 {
		fmt.Fprintf(bw, "duplicates: %d rows repeat a URL (%d across sitemaps)\n", s.Duplicates, s.CrossDuplicates)
	}
	if s.Filtered > 0 {
		if s.SkipLog {
			fmt.Fprintf(bw, "filtered: %d entries (in the skip log as sitemap-filter)\n", s.Filtered)
		} else {
			fmt.Fprintf(bw, "filtered: %d entries (sitemap filters)\n", s.Filtered)
		}
	}
	s.LastMod.Format(bw)
	for _, a := range s.Agents {
		fmt.Fprintf(bw, "agent %s: %d allowed, %d disallowed by robots.txt\n", a.Agent, a.Allowed, a.Disallowed)
	}
	if s.Problems > 0 {
		fmt.Fprintf(bw, "problems: %d rows list a URL out of scope or invalid (see the problem column)\n", s.Problems)
	}
	if len(s.Agents) > 0 {
		fmt.Fprintf(bw, "listed in a sitemap but disallowed by robots.txt for %s: %d\n", s.Agents[0].Agent, s.Disallowed)
	} else {
		fmt.Fprintf(bw, "listed in a sitemap but disallowed by robots.txt: %d\n", s.Disallowed)
	}
	for _, r := range s.DisallowedURLs {
		if r.Line > 0 {
			fmt.Fprintf(bw, "  %s  line %d: %s  (%s)\n", r.URL, r.Line, r.Rule, r.RobotsURL)
		} else {
			fmt.Fprintf(bw, "  %s  %s (%s)\n", r.URL, r.Reason, r.RobotsURL)
		}
	}
	if n := s.Disallowed - len(s.DisallowedURLs); n > 0 {
		fmt.Fprintf(bw, "  ... and %d more\n", n)
	}
	if s.Interrupted {
		fmt.Fprintln(bw, "interrupted: the inventory is incomplete")
	}
	return bw.Flush()
}

package discovery

import (
	"fmt"
	"io"
)

// maxResults is how many sitemaps Stats describes one by one; the rest
// are counted.
const maxResults = 1000

// Stats is what a crawl did with sitemaps.
type Stats struct {
	// Queued counts sitemaps admitted to the frontier; Read those answered
	// 2xx and parsed; Failed those answered another status (a missing
	// /sitemap.xml included), not answered at all (the tries spent), or
	// not readable to the end (malformed, an unknown format, a read
	// error); Truncated those cut by a limit of
	// the sitemap package (50,000 entries, 50 MiB).
	Queued    int64 `json:"queued"`
	Read      int64 `json:"read"`
	Failed    int64 `json:"failed"`
	Truncated int64 `json:"truncated"`
	// Interrupted counts the sitemaps whose reading the crawl's stop cut
	// (see Interrupted), neither read nor failed: a paused job, or a
	// process of a shared crawl, puts each back in the queue to be read
	// again from its start; a crawl that drains its queue skip-logs each
	// as interrupted.
	Interrupted int64 `json:"interrupted,omitempty"`
	// Incomplete counts the failed sitemaps whose pages the crawl may not
	// know: those cut short while being read (a read error, the
	// deadline, malformed content) or not fetched at all (a status other
	// than 404 or 410, a network error). The pages such a sitemap lists
	// past the cut are neither fetched nor in the skip log: the crawl is
	// complete for what it discovered, not for what the site lists. The
	// sitemap itself is in the skip log when it got no response, or when
	// its body broke (fetch-error, with the entries read before the
	// break); each is counted once, here and in Failed.
	Incomplete int64 `json:"incomplete,omitempty"`
	// Listed counts the page entries read; PagesQueued those admitted to
	// the frontier, Duplicates those it already knew, Skipped those
	// skip-logged (a problem, a filter).
	Listed      int64 `json:"listed"`
	PagesQueued int64 `json:"pages_queued"`
	Duplicates  int64 `json:"duplicates"`
	Skipped     int64 `json:"skipped"`
	// Probes counts /sitemap.xml probes of seeds dropped because
	// robots.txt listed other sitemaps.
	Probes int64 `json:"probes_dropped"`
	// Sitemaps describes the first sitemaps fetched, one by one;
	// SitemapsDropped counts the others.
	Sitemaps        []Result `json:"sitemaps,omitempty"`
	SitemapsDropped int      `json:"sitemaps_dropped,omitempty"`
}

// Result is one sitemap fetched by a crawl.
type Result struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	// Format is the document's format ("urlset", "index", "text", ...).
	Format     string `json:"format,omitempty"`
	Compressed bool   `json:"compressed,omitempty"`
	// Bytes is the uncompressed size read.
	Bytes int64 `json:"bytes"`
	// URLs and Sitemaps count the entries listed without a problem;
	// Rejected those with one.
	URLs     int `json:"urls"`
	Sitemaps int `json:"sitemaps"`
	Rejected int `json:"rejected,omitempty"`
	// TruncatedBy is "max-urls" or "max-bytes" when a limit cut the
	// document.
	TruncatedBy string `json:"truncated_by,omitempty"`
	// Err says why the sitemap could not be read to the end.
	Err string `json:"error,omitempty"`
	// Interrupted says the crawl's stop cut the reading (Err says after
	// how many entries).
	Interrupted bool `json:"interrupted,omitempty"`
}

// Format writes the sitemap counts in a few lines; nothing when the crawl
// read no sitemap.
func (s Stats) Format(w io.Writer) error {
	if s.Queued == 0 && s.Read == 0 && s.Failed == 0 && s.Interrupted == 0 {
		return nil
	}
	probes := ""
	if s.Probes > 0 {
		probes = fmt.Sprintf(" (%d /sitemap.xml probes not needed)", s.Probes)
	}
	_, err := fmt.Fprintf(w, "sitemaps: %d queued%s, %d read, %d failed, %d truncated\n  listed %d pages: %d queued, %d already known, %d skipped\n",
		s.Queued, probes, s.Read, s.Failed, s.Truncated, s.Listed, s.PagesQueued, s.Duplicates, s.Skipped)
	if err == nil && s.Interrupted > 0 {
		_, err = fmt.Fprintf(w, "  %d sitemaps cut by the stop: a paused job reads them again, whole; otherwise each is skip-logged as interrupted\n", s.Interrupted)
	}
	if err != nil || s.Incomplete == 0 {
		return err
	}
	if _, err := fmt.Fprintf(w, "  INCOMPLETE: %d sitemaps not read to their end; the pages they list past that point are neither fetched nor skip-logged (a sitemap cut while read is, with the entries read)\n", s.Incomplete); err != nil {
		return err
	}
	shown := 0
	for _, r := range s.Sitemaps {
		if !r.Incomplete() {
			continue
		}
		if shown == maxShown {
			_, err := fmt.Fprintf(w, "    ... and %d more (the sitemap report lists them)\n", s.Incomplete-int64(shown))
			return err
		}
		shown++
		if _, err := fmt.Fprintf(w, "    %s: %s (%d URLs read)\n", r.URL, r.Err, r.URLs); err != nil {
			return err
		}
	}
	return nil
}

// maxShown is how many incomplete sitemaps Format names.
const maxShown = 5

// Incomplete reports whether the sitemap's pages may be unknown to the
// crawl (see Stats.Incomplete). A sitemap the stop cut is not: the crawl
// reads it again or skip-logs it.
func (r Result) Incomplete() bool {
	return r.Err != "" && !r.Interrupted && r.Status != 404 && r.Status != 410
}

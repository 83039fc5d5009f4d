package testweb

import (
	"github.com/heedcrawl/heed/skiplog"
)

// InventoryRow is one URL listed in a sitemap, as a sitemap inventory of
// the site should report it. LastMod, ChangeFreq and Priority are written
// exactly as in the sitemap ("" when absent).
type InventoryRow struct {
	URL        string
	LastMod    string
	ChangeFreq string
	Priority   string
	// Sitemap is the URL of the sitemap that lists URL.
	Sitemap string
	// Allowed reports whether the agent may fetch URL; when not, Reason,
	// Line, Rule, RobotsURL and Group say why.
	Allowed   bool
	Reason    skiplog.Reason
	Line      int
	Rule      string
	RobotsURL string
	Group     []string
}

// SitemapExpectation is what sitemap discovery over every host of the
// site should do: which sitemaps it reads, which it must not, and the
// inventory it builds.
type SitemapExpectation struct {
	// Fetched holds every sitemap URL that is read (a 404 fallback probe
	// is not listed).
	Fetched map[string]bool
	// Skipped holds the sitemap URLs that robots.txt disallows.
	Skipped map[string]ExpectedSkip
	// Rows is the inventory in discovery order: hosts in [Site.Hosts]
	// order, a host's Sitemap lines in file order, an index's sitemaps in
	// listed order.
	Rows []InventoryRow
}

// ExpectedInventory returns the sitemap inventory agent should build
// from every host of the site; see [Site.ExpectedSitemaps].
func (s *Site) ExpectedInventory(agent string) []InventoryRow {
	return s.ExpectedSitemaps(agent).Rows
}

// ExpectedSitemaps returns what sitemap discovery by agent over every host
// should do. Discovery starts from a host's robots.txt Sitemap lines, or
// from /sitemap.xml when its robots.txt has none; a host whose robots.txt
// is unreachable yields nothing. A sitemap that robots.txt disallows is
// skipped and never requested. Every URL listed in a readable sitemap is
// also linked, so following sitemaps changes nothing in [Site.Expected].
//
// Hosts that declare sitemaps: main and merge (Sitemap lines), maps (an
// index, a urlset, a gzipped urlset, a text sitemap and a disallowed
// sitemap) and norobots (the /sitemap.xml fallback). Generated sites have
// none.
func (s *Site) ExpectedSitemaps(agent string) SitemapExpectation {
	e := SitemapExpectation{Fetched: map[string]bool{}, Skipped: map[string]ExpectedSkip{}}
	seen := map[string]bool{}
	var read func(sitemapURL string)
	read = func(sitemapURL string) {
		u, ok := parseCanonical(nil, sitemapURL)
		if !ok || seen[u] {
			return
		}
		seen[u] = true
		pu := mustParse(u)
		h := s.byAuthority[authorityOf(pu)]
		if h == nil {
			return
		}
		uri := requestURI(pu)
		if sk := s.verdict(h, agent, uri); sk != nil {
			e.Skipped[u] = *sk
			return
		}
		sh, ok := h.content.(*scenarioHost)
		if !ok || sh.sitemaps[uri] == nil {
			return
		}
		e.Fetched[u] = true
		d := sh.sitemaps[uri]
		for _, entry := range d.entries {
			if d.kind == sitemapIndex {
				read(entry.loc)
				continue
			}
			e.Rows = append(e.Rows, s.inventoryRow(agent, u, entry))
		}
	}
	for _, h := range s.hosts {
		if h.content.robotsFor(agent).unreachable {
			continue
		}
		lines := []string{h.URL("/sitemap.xml")}
		if sh, ok := h.content.(*scenarioHost); ok && len(sh.sitemapLines) > 0 {
			lines = sh.sitemapLines
		}
		for _, l := range lines {
			read(l)
		}
	}
	return e
}

func (s *Site) inventoryRow(agent, sitemapURL string, entry sitemapEntry) InventoryRow {
	row := InventoryRow{
		URL: entry.loc, LastMod: entry.lastmod, ChangeFreq: entry.changefreq, Priority: entry.priority,
		Sitemap: sitemapURL, Allowed: true,
	}
	u, ok := parseCanonical(nil, entry.loc)
	if !ok {
		row.Allowed, row.Reason = false, skiplog.InvalidURL
		return row
	}
	row.URL = u
	pu := mustParse(u)
	h := s.byAuthority[authorityOf(pu)]
	if h == nil {
		row.Allowed, row.Reason = false, skiplog.Offsite
		return row
	}
	if sk := s.verdict(h, agent, requestURI(pu)); sk != nil {
		row.Allowed, row.Reason = false, sk.Reason
		row.Line, row.Rule, row.RobotsURL, row.Group = sk.Line, sk.Rule, sk.RobotsURL, sk.Group
	}
	return row
}

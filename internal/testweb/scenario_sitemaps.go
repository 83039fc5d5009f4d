package testweb

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"net/http"
	"strings"
)

type sitemapKind int

const (
	sitemapURLSet sitemapKind = iota
	sitemapIndex
	sitemapText
)

// sitemapEntry is one <url> of a urlset, one <sitemap> of an index, or
// one line of a text sitemap. Fields are written exactly as given.
type sitemapEntry struct {
	loc, lastmod, changefreq, priority string
}

// sitemapDecl is a declared sitemap file.
type sitemapDecl struct {
	kind    sitemapKind
	gzip    bool
	entries []sitemapEntry
}

// body renders the sitemap (gzipped when declared so).
func (d *sitemapDecl) body() []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	field := func(name, v string) {
		if v != "" {
			b.WriteString("    <" + name + ">" + esc(v) + "</" + name + ">\n")
		}
	}
	switch d.kind {
	case sitemapText:
		for _, e := range d.entries {
			b.WriteString(e.loc + "\n")
		}
	case sitemapIndex:
		b.WriteString(xml.Header + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, e := range d.entries {
			b.WriteString("  <sitemap>\n")
			field("loc", e.loc)
			field("lastmod", e.lastmod)
			b.WriteString("  </sitemap>\n")
		}
		b.WriteString("</sitemapindex>\n")
	default:
		b.WriteString(xml.Header + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, e := range d.entries {
			b.WriteString("  <url>\n")
			field("loc", e.loc)
			field("lastmod", e.lastmod)
			field("changefreq", e.changefreq)
			field("priority", e.priority)
			b.WriteString("  </url>\n")
		}
		b.WriteString("</urlset>\n")
	}
	if !d.gzip {
		return b.Bytes()
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b.Bytes()) // writes to a bytes.Buffer cannot fail
	w.Close()
	return z.Bytes()
}

func (d *sitemapDecl) contentType() string {
	switch {
	case d.gzip:
		return ctypeGzip
	case d.kind == sitemapText:
		return ctypeText
	}
	return ctypeXML
}

// serveSitemaps adds a route for every declared sitemap.
func (h *scenarioHost) serveSitemaps() {
	for uri, d := range h.sitemaps {
		h.routes[uri] = static(http.StatusOK, d.contentType(), d.body(), "")
	}
}

// mapsHost is the sitemap host: robots.txt Sitemap lines lead to an index
// and a text sitemap; the index lists a urlset, a gzipped urlset and a
// sitemap that robots.txt disallows. Some listed URLs are disallowed too.
func (b *scenario) mapsHost() *scenarioHost {
	h := newScenarioHost()
	self := b.url(HostMaps, "")
	h.sitemapLines = []string{self + "/sitemap_index.xml", self + "/sitemaps/list.txt"}
	h.robots(newRobots().
		group("*").
		rule("Disallow: /drafts/", "/drafts/1", "/drafts/2", "/drafts/3").
		rule("Disallow: /private/", "/private/sitemap.xml").
		blank().
		other("Sitemap: " + h.sitemapLines[0]).
		other("Sitemap: " + h.sitemapLines[1]).
		file())

	root := pg("/", "maps: home").note("Every page listed in this host's sitemaps is also linked here.")
	for i := 1; i <= 10; i++ {
		root.links = append(root.links, "/page/"+itoa(i))
		h.add(pg("/page/"+itoa(i), "maps: page "+itoa(i), "/"))
	}
	for i := 1; i <= 3; i++ {
		root.links = append(root.links, "/drafts/"+itoa(i))
		h.add(pg("/drafts/"+itoa(i), "maps: draft "+itoa(i), "/"))
	}
	h.add(root)
	// Listed only in the disallowed sitemap: nobody should learn of it.
	h.add(pg("/page/secret", "maps: secret"))

	u := func(uri string) string { return self + uri }
	h.sitemaps["/sitemap_index.xml"] = &sitemapDecl{kind: sitemapIndex, entries: []sitemapEntry{
		{loc: u("/sitemaps/pages.xml"), lastmod: "2025-01-10"},
		{loc: u("/sitemaps/more.xml.gz"), lastmod: "2025-01-11T12:00:00Z"},
		{loc: u("/private/sitemap.xml")},
	}}
	h.sitemaps["/sitemaps/pages.xml"] = &sitemapDecl{kind: sitemapURLSet, entries: []sitemapEntry{
		{loc: u("/page/1"), lastmod: "2025-01-01", changefreq: "daily", priority: "1.0"},
		{loc: u("/page/2"), lastmod: "2025-01-02T08:00:00+00:00", changefreq: "weekly", priority: "0.8"},
		{loc: u("/page/3"), changefreq: "monthly", priority: "0.5"},
		{loc: u("/page/4"), lastmod: "2025-01-04"},
		{loc: u("/page/5")},
		{loc: u("/drafts/1"), lastmod: "2025-01-03", changefreq: "never", priority: "0.1"},
	}}
	h.sitemaps["/sitemaps/more.xml.gz"] = &sitemapDecl{kind: sitemapURLSet, gzip: true, entries: []sitemapEntry{
		{loc: u("/page/6"), lastmod: "2025-02-06", changefreq: "yearly", priority: "0.6"},
		{loc: u("/page/7"), lastmod: "2025-02-07"},
		{loc: u("/page/8")},
		{loc: u("/drafts/2"), priority: "0.2"},
	}}
	h.sitemaps["/sitemaps/list.txt"] = &sitemapDecl{kind: sitemapText, entries: []sitemapEntry{
		{loc: u("/page/9")}, {loc: u("/page/10")}, {loc: u("/drafts/3")},
	}}
	h.sitemaps["/private/sitemap.xml"] = &sitemapDecl{kind: sitemapURLSet, entries: []sitemapEntry{
		{loc: u("/page/secret"), lastmod: "2025-01-05"},
	}}
	h.serveSitemaps()
	return h
}

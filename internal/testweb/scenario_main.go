package testweb

import (
	"strconv"
	"strings"
)

var itoa = strconv.Itoa

// mainHost is the scenario's entry: a robots.txt with a HeedBot group and
// a different "*" group, pages that exercise every kind of rule, ordinary
// pages with duplicate links, and links to every other host.
func (b *scenario) mainHost() *scenarioHost {
	h := newScenarioHost()
	self := b.url(HostMain, "")
	sitemap := self + "/sitemap.xml"
	h.sitemapLines = []string{sitemap}

	// The exclusions below were worked out by hand from RFC 9309: longest
	// match wins, a tie goes to Allow, "$" anchors, "*" spans anything,
	// %7E is "~", non-ASCII is compared percent-encoded, paths are
	// case-sensitive and queries are matched as written.
	h.robots(newRobots().
		comment(`robots.txt of heed's test site, host "main".`).
		comment(`Two groups: HeedBot's own, and "*" for everyone else.`).
		blank().
		group("*").
		rule("Disallow: /private/", "/private/secret", "/private/open").
		rule("Disallow: /heedbot-only/", "/heedbot-only/welcome", "/heedbot-only/next").
		rule("Disallow: /cart", "/cart", "/cart/help", "/cart/help?lang=en", "/cart/checkout", "/cartoons").
		blank().
		comment(`HeedBot's group replaces "*": none of the rules above apply to it.`).
		group("HeedBot").
		rule("Disallow: /private/", "/private/secret").
		rule("Allow: /private/open").
		rule("Disallow: /*.pdf$", "/docs/report.pdf").
		rule("Disallow: /*?sessionid=", "/item?sessionid=1").
		rule("disallow: /search?q=", "/search?q=x").
		rule("Disallow: /cart", "/cart", "/cart/help?lang=en", "/cart/checkout", "/cartoons").
		rule("Allow: /cart/help$").
		rule("Disallow: /%7Ejoe/", "/~joe/home").
		rule("Disallow: /café/", "/caf%C3%A9/menu").
		blank().
		comment("Sitemap lines belong to no group.").
		other("Sitemap: " + sitemap).
		file())

	nav := []string{"/", "/about"}
	withNav := func(p *page) *page { p.links = append(append([]string{}, nav...), p.links...); return p }

	// Ordinary pages. /about is linked from nearly everywhere, also as
	// "../about#team", "/about#top", an absolute URL and with an
	// upper-case scheme: one URL however it is written.
	h.add(
		pg("/", "heed test site", "/about", "/contact", "/team", "/blog/", "/products/", "/docs/", "/news/",
			"/hosts", "/rules", "/missing", OffsiteURL, "/about#team", "/").
			note("The home page of heed's loopback test site. /missing is a broken link (404)."),
		withNav(pg("/about", "About", "/team", "/contact")),
		withNav(pg("/contact", "Contact", "/about#top")),
		withNav(pg("/team", "Team", self+"/about")),
		withNav(pg("/blog/", "Blog", "post-1", "post-2", "post-3", "post-4", "post-5")),
		withNav(pg("/products/", "Products", "1", "2", "3", "4")),
		withNav(pg("/docs/", "Docs", "guide", "faq")),
		withNav(pg("/docs/guide", "Guide", self+"/about", "/docs/faq")),
		withNav(pg("/docs/faq", "FAQ", "./guide", "/about#faq")),
		withNav(pg("/news/", "News", "/news/2024", "/news/2025", "/about#top")),
		withNav(pg("/news/2024", "News 2024", "/news/2025")),
		withNav(pg("/news/2025", "News 2025", "/news/2024")),
	)
	for i := 1; i <= 5; i++ {
		p := withNav(pg("/blog/post-"+itoa(i), "Post "+itoa(i), "../about#team", "/blog/"))
		if i < 5 {
			p.links = append(p.links, "post-"+itoa(i+1))
		}
		h.add(p)
	}
	for i := 1; i <= 4; i++ {
		h.add(withNav(pg("/products/"+itoa(i), "Product "+itoa(i),
			"HTTP://"+strings.TrimPrefix(self, "http://")+"/about", "/products/")))
	}

	// One page per rule to exercise, all linked from /rules.
	exercised := []string{
		"/private/secret", "/private/open", "/Private/notes",
		"/docs/report.pdf", "/docs/report.pdf.html", "/docs/report.pdf?download=1",
		"/search", "/search?q=x", "/search?z=1&q=x",
		"/item?id=1", "/item?sessionid=1", "/item?id=1&sessionid=2",
		"/cart", "/cart/help", "/cart/help?lang=en", "/cart/checkout", "/cartoons",
		"/heedbot-only/welcome", "/~joe/home", "/caf%C3%A9/menu",
	}
	h.add(withNav(pg("/rules", "Rules", exercised...).
		note("Each link here is decided by a different rule of main's robots.txt.")))
	for _, uri := range exercised {
		p := withNav(pg(uri, "Rule page "+uri))
		if uri == "/heedbot-only/welcome" {
			p.links = append(p.links, "/heedbot-only/next")
		}
		h.add(p)
	}
	h.add(withNav(pg("/heedbot-only/next", "Only HeedBot gets here")))

	// Reached only through the redirects host's cross-host redirect.
	h.add(withNav(pg("/landing/from-redirects", "Landing", "/landing/next")))
	h.add(withNav(pg("/landing/next", "After the landing")))

	// Every other host, and the pages of the hosts whose robots.txt can
	// never be read (so that they are discovered, and must be skipped).
	hosts := pg("/hosts", "Hosts").note("Every host of the site.")
	for _, other := range b.s.hosts {
		if other.Name != HostMain && other.Name != HostFiles {
			hosts.links = append(hosts.links, other.BaseURL)
		}
	}
	for _, uri := range brokenPages {
		hosts.links = append(hosts.links, b.url(HostBroken, uri))
	}
	for _, uri := range slowPages {
		hosts.links = append(hosts.links, b.url(HostSlow, uri))
	}
	h.add(withNav(hosts))

	h.sitemaps["/sitemap.xml"] = &sitemapDecl{kind: sitemapURLSet, entries: []sitemapEntry{
		{loc: self + "/", lastmod: "2025-03-01", changefreq: "daily", priority: "1.0"},
		{loc: self + "/about", lastmod: "2025-02-01", changefreq: "monthly", priority: "0.5"},
		{loc: self + "/blog/post-1", lastmod: "2025-02-15T09:30:00+00:00"},
		{loc: self + "/search?z=1&q=x", changefreq: "weekly"},
		{loc: self + "/private/secret", lastmod: "2025-01-01"},
		{loc: self + "/docs/report.pdf", priority: "0.3"},
	}}
	h.serveSitemaps()
	return h
}

package testweb

import (
	"fmt"
	"net/http"
	"strings"
)

// Pages of the hosts whose robots.txt can never be read; main links them
// all so that a crawler discovers them and must account for each.
var (
	brokenPages = []string{"/a", "/b", "/c", "/d"}
	slowPages   = []string{"/a", "/b"}
)

func (b *scenario) delayHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().withCRLF().
		comment(`host "delay": one request every 0.2 s, please (CRLF line ends).`).
		group("*").
		rule("Crawl-delay: 0.2").
		rule("Allow: /").
		file())
	h.add(pg("/", "delay: home", "/chain/1", "/fan/1", "/fan/2", "/fan/3").
		note("A chain of four pages and a fan-out of three, for pacing tests."))
	for i := 1; i <= 4; i++ {
		p := pg("/chain/"+itoa(i), "delay: chain "+itoa(i), "/")
		if i < 4 {
			p.links = append(p.links, "/chain/"+itoa(i+1))
		}
		h.add(p)
	}
	for i := 1; i <= 3; i++ {
		h.add(pg("/fan/"+itoa(i), "delay: fan "+itoa(i), "/"))
	}
	return h
}

func (b *scenario) noRobotsHost() *scenarioHost {
	h := newScenarioHost()
	h.robotsStatus(http.StatusNotFound)
	h.add(pagesUnder("norobots", "/a", "/b", "/c", "/d")...)
	self := b.url(HostNoRobots, "")
	// No robots.txt means no Sitemap lines: this is the /sitemap.xml
	// fallback.
	h.sitemaps["/sitemap.xml"] = &sitemapDecl{kind: sitemapURLSet, entries: []sitemapEntry{
		{loc: self + "/", lastmod: "2025-04-01"},
		{loc: self + "/a"}, {loc: self + "/b"}, {loc: self + "/c"}, {loc: self + "/d"},
	}}
	h.serveSitemaps()
	return h
}

func (b *scenario) forbiddenHost() *scenarioHost {
	h := newScenarioHost()
	h.robotsStatus(http.StatusForbidden)
	h.add(pagesUnder("forbidden", "/a", "/b")...)
	return h
}

func (b *scenario) brokenHost() *scenarioHost {
	h := newScenarioHost()
	h.robotsStatus(http.StatusInternalServerError)
	h.add(pagesUnder("broken", brokenPages...)...)
	return h
}

func (b *scenario) flakyHost() *scenarioHost {
	h := newScenarioHost()
	f := newRobots().
		group("*").
		rule("Disallow: /nope/", "/nope/x").
		file()
	steps := make([]route, 0, FlakyFailures+1)
	for i := 0; i < FlakyFailures; i++ {
		steps = append(steps, static(http.StatusServiceUnavailable, ctypeText, []byte("503 try later\n"), "unavailable"))
	}
	steps = append(steps, static(http.StatusOK, ctypeText, f.body(), "recovered"))
	h.routes["/robots.txt"] = sequence(steps...)
	h.outcome = robotsOutcome{status: http.StatusOK, file: f}
	h.add(pagesUnder("flaky", "/a", "/b", "/nope/x")...)
	return h
}

func (b *scenario) slowHost() *scenarioHost {
	h := newScenarioHost()
	h.routes["/robots.txt"] = delayed(static(http.StatusOK, ctypeText, []byte("User-agent: *\nAllow: /\n"), "late"))
	// A crawler that times out sees no status at all.
	h.outcome = robotsOutcome{unreachable: true}
	h.add(pagesUnder("slow", slowPages...)...)
	return h
}

// bigLateOffset is where the big host's "Disallow: /late/" line starts:
// well past RobotsParseLimit, so that a parser stopping anywhere at or
// after the limit (but before the line) ignores it.
const bigLateOffset = RobotsParseLimit + 8*1024

// bigSize is the big robots.txt's size: about 600 KiB.
const bigSize = 600 * 1024

func (b *scenario) bigHost() *scenarioHost {
	h := newScenarioHost()
	r := newRobots().
		group("*").
		rule("Disallow: /early/", "/early/x")
	size := 0
	for _, l := range r.f.lines {
		size += len(l.text) + 1
	}
	pad := func(until int) {
		for n := len(r.f.lines) + 1; size < until; n++ {
			line := fmt.Sprintf("# padding line %06d ", n)
			line += strings.Repeat("x", 99-len(line))
			r.other(line)
			size += len(line) + 1
		}
	}
	pad(bigLateOffset)
	// Past the parse limit: ignored, so it excludes nothing.
	r.rule("Disallow: /late/")
	size += len("Disallow: /late/") + 1
	pad(bigSize)
	h.robots(r.file())
	h.add(pagesUnder("big", "/early/x", "/late/x", "/other")...)
	return h
}

func (b *scenario) namedHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().
		group("*").
		ruleFn("Disallow: /", func(string) bool { return true }).
		blank().
		group("heedbot").
		rule("Disallow: /nope/", "/nope/x", "/nope/from-redirect").
		file())
	h.add(pagesUnder("named", "/a", "/b", "/nope/x")...)
	// Reached only by the redirects host's /to-named, which must not be
	// followed.
	h.add(pg("/nope/from-redirect", "named: redirect target"))
	return h
}

func (b *scenario) mergeHost() *scenarioHost {
	h := newScenarioHost()
	sitemap := b.url(HostMerge, "/sitemap.xml")
	h.sitemapLines = []string{sitemap}
	h.robots(newRobots().
		comment("A Sitemap line between user-agent lines does not end a group:").
		comment("HeedBot and alphabot share the rules below.").
		group("HeedBot").
		other("Sitemap: "+sitemap).
		agent("alphabot").
		rule("Disallow: /shared/", "/shared/x").
		blank().
		group("*").
		rule("Disallow: /star/", "/star/x").
		file())
	h.add(pagesUnder("merge", "/a", "/shared/x", "/star/x")...)
	self := b.url(HostMerge, "")
	h.sitemaps["/sitemap.xml"] = &sitemapDecl{kind: sitemapURLSet, entries: []sitemapEntry{
		{loc: self + "/"}, {loc: self + "/a"}, {loc: self + "/shared/x"},
	}}
	h.serveSitemaps()
	return h
}

// portsHost declares one of the three authorities on the shared address:
// each links the other two.
func (b *scenario) portsHost(self string, f *robotsFile) *scenarioHost {
	h := newScenarioHost()
	h.robots(f)
	root := pg("/", self+": home", "/x/1", "/y/1").
		note("Three authorities share this address: two http ports and one https port.")
	for _, other := range []string{HostPortsA, HostPortsB, HostPortsTLS} {
		if other != self {
			root.links = append(root.links, b.s.byName[other].BaseURL)
		}
	}
	h.add(root, pg("/x/1", self+": x", "/"), pg("/y/1", self+": y", "/"))
	return h
}

func (b *scenario) portsAHost() *scenarioHost {
	return b.portsHost(HostPortsA, newRobots().group("*").rule("Disallow: /x/", "/x/1").file())
}

func (b *scenario) portsBHost() *scenarioHost {
	return b.portsHost(HostPortsB, newRobots().group("*").rule("Allow: /").file())
}

func (b *scenario) portsTLSHost() *scenarioHost {
	return b.portsHost(HostPortsTLS, newRobots().group("*").rule("Disallow: /y/", "/y/1").file())
}

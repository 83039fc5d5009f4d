package testweb

import (
	"net/http"
)

// robotsHop is one step of a robots.txt redirect chain: served on host at
// uri, it redirects with code to the next step (the last step is the file).
type robotsHop struct {
	host, uri string
	code      int
}

// redirectCodes cycles through every redirect status a robots.txt or a
// page may answer with.
var redirectCodes = []int{
	http.StatusMovedPermanently, http.StatusFound,
	http.StatusTemporaryRedirect, http.StatusPermanentRedirect,
}

// robotsChain returns the robots.txt redirect chains of redir5 and redir6:
// the hops in order, ending at the final file's location on the files
// host. The first hops stay on the host, the last ones move to files.
func (b *scenario) robotsChain(name string, redirects int) []robotsHop {
	hops := []robotsHop{{host: name, uri: "/robots.txt"}}
	for i := 1; i < redirects; i++ {
		host := name
		if i >= redirects-2 {
			host = HostFiles
		}
		uri := "/robots-hop/" + itoa(i)
		if host == HostFiles {
			uri = "/" + name + "/hop-" + itoa(i)
		}
		hops = append(hops, robotsHop{host: host, uri: uri})
	}
	hops = append(hops, robotsHop{host: HostFiles, uri: "/" + name + "/robots.txt"})
	for i := range hops[:len(hops)-1] {
		hops[i].code = redirectCodes[i%len(redirectCodes)]
	}
	return hops
}

// redirFile is the robots.txt at the end of redir5's and redir6's chains.
func redirFile(name string, redirects int) *robotsFile {
	return newRobots().
		comment(name+" reaches this file after "+itoa(redirects)+" redirects.").
		group("*").
		rule("Disallow: /blocked/", "/blocked/x").
		file()
}

// location writes the Location of a hop: relative on the same host,
// absolute across hosts.
func (b *scenario) location(from, to robotsHop) string {
	if from.host == to.host {
		return to.uri
	}
	return b.url(to.host, to.uri)
}

func (b *scenario) redir5Host() *scenarioHost {
	h := newScenarioHost()
	hops := b.robotsChain(HostRedir5, RobotsRedirectLimit)
	for i, hp := range hops[:len(hops)-1] {
		if hp.host == HostRedir5 {
			h.routes[hp.uri] = redirect(hp.code, b.location(hp, hops[i+1]), "redirect "+itoa(i+1))
		}
	}
	// Within the limit: the final file's rules apply to redir5.
	h.outcome = robotsOutcome{status: http.StatusOK, file: redirFile(HostRedir5, RobotsRedirectLimit)}
	h.add(pagesUnder("redir5", "/a", "/blocked/x")...)
	return h
}

func (b *scenario) redir6Host() *scenarioHost {
	h := newScenarioHost()
	hops := b.robotsChain(HostRedir6, RobotsRedirectLimit+1)
	for i, hp := range hops[:len(hops)-1] {
		if hp.host == HostRedir6 {
			h.routes[hp.uri] = redirect(hp.code, b.location(hp, hops[i+1]), "redirect "+itoa(i+1))
		}
	}
	// One redirect too many: robots.txt is unavailable, like a 4xx, so
	// nothing is restricted. The status is that of the last hop followed.
	h.outcome = robotsOutcome{status: hops[RobotsRedirectLimit].code}
	h.add(pagesUnder("redir6", "/a", "/blocked/x")...)
	return h
}

// filesHost serves the far end of redir5's and redir6's robots.txt chains.
func (b *scenario) filesHost() *scenarioHost {
	h := newScenarioHost()
	h.robotsStatus(http.StatusNotFound)
	for _, c := range []struct {
		name      string
		redirects int
	}{{HostRedir5, RobotsRedirectLimit}, {HostRedir6, RobotsRedirectLimit + 1}} {
		hops := b.robotsChain(c.name, c.redirects)
		for i, hp := range hops[:len(hops)-1] {
			if hp.host == HostFiles {
				h.routes[hp.uri] = redirect(hp.code, b.location(hp, hops[i+1]), "redirect "+itoa(i+1))
			}
		}
		final := hops[len(hops)-1]
		h.routes[final.uri] = static(http.StatusOK, ctypeText, redirFile(c.name, c.redirects).body(), "")
	}
	return h
}

// redirectsHost declares page redirects: a three-hop chain, a redirect to
// a disallowed page on another host and one on the same host, a loop, a
// chain longer than DefaultRedirectLimit and a cross-host redirect.
func (b *scenario) redirectsHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().
		group("*").
		rule("Disallow: /never/", "/never/x").
		file())
	h.add(pg("/", "redirects: home", "/chain/1", "/to-named", "/to-never", "/loop/a", "/long/0", "/to-main").
		note("Every link here redirects."))
	h.add(
		hop("/chain/1", http.StatusFound, "/chain/2"),
		hop("/chain/2", http.StatusMovedPermanently, b.url(HostRedirects, "/chain/3")),
		hop("/chain/3", http.StatusTemporaryRedirect, "end"),
		pg("/chain/end", "redirects: end of the chain", "/"),
		hop("/to-named", http.StatusFound, b.url(HostNamed, "/nope/from-redirect")),
		hop("/to-never", http.StatusFound, "/never/x"),
		pg("/never/x", "redirects: never"),
		hop("/loop/a", http.StatusFound, "/loop/b"),
		hop("/loop/b", http.StatusMovedPermanently, "/loop/a"),
		hop("/to-main", http.StatusMovedPermanently, b.url(HostMain, "/landing/from-redirects")),
	)
	for i := 0; i < longChain; i++ {
		h.add(hop("/long/"+itoa(i), redirectCodes[i%len(redirectCodes)], "/long/"+itoa(i+1)))
	}
	h.add(pg("/long/"+itoa(longChain), "redirects: end of the long chain", "/"))
	return h
}

// longChain is the number of redirects of /long/0: more than
// DefaultRedirectLimit.
const longChain = 12

func (b *scenario) rateLimitHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().group("*").rule("Allow: /").file())
	h.add(pg("/", "ratelimit: home", "/once-429", "/once-503", "/calm"),
		pg("/calm", "ratelimit: calm", "/"))
	for _, c := range []struct {
		uri    string
		status int
	}{{"/once-429", http.StatusTooManyRequests}, {"/once-503", http.StatusServiceUnavailable}} {
		p := pg(c.uri, "ratelimit: "+c.uri, "/").
			note("The first request is refused with Retry-After: 1; later ones succeed.")
		p.final = http.StatusOK
		p.serve = sequence(
			withHeader("Retry-After", "1", static(c.status, ctypeText, []byte(http.StatusText(c.status)+"\n"), "first")),
			static(http.StatusOK, ctypeHTML, p.render(), "again"),
		)
		h.add(p)
	}
	return h
}

// changingSteps is the length of the changing host's page chain.
const changingSteps = 10

func (b *scenario) changingHost() *scenarioHost {
	h := newScenarioHost()
	var v1Blocked []string
	for i := 1; i <= changingSteps; i++ {
		v1Blocked = append(v1Blocked, "/v1-blocked/"+itoa(i))
	}
	v1 := newRobots().comment("version 1").group("*").rule("Disallow: /v1-blocked/", v1Blocked...).file()
	v2 := newRobots().comment("version 2").group("*").rule("Disallow: /v2-blocked/").file()
	h.routes["/robots.txt"] = sequence(
		static(http.StatusOK, ctypeText, v1.body(), "v1"),
		static(http.StatusOK, ctypeText, v2.body(), "v2"),
	)
	// The oracle assumes one robots.txt fetch for the whole crawl.
	h.outcome = robotsOutcome{status: http.StatusOK, file: v1}
	h.add(pg("/", "changing: home", "/step/1").
		note("robots.txt changes after its first fetch; the chain below is long enough to notice."))
	for i := 1; i <= changingSteps; i++ {
		p := pg("/step/"+itoa(i), "changing: step "+itoa(i), "/v1-blocked/"+itoa(i), "/v2-blocked/"+itoa(i))
		if i < changingSteps {
			p.links = append(p.links, "/step/"+itoa(i+1))
		}
		h.add(p,
			pg("/v1-blocked/"+itoa(i), "changing: blocked by v1", "/"),
			pg("/v2-blocked/"+itoa(i), "changing: blocked by v2", "/"))
	}
	return h
}

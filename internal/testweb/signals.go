package testweb

import (
	"fmt"
	"html"
	"net/http"
	"strings"
)

// The signals site: hosts that speak to crawlers outside robots.txt, with
// page directives (meta robots, agent-specific meta, X-Robots-Tag with and
// without an agent prefix) and AI usage preferences (Content-Usage rules
// in robots.txt with and without paths and with conflicting identical
// paths, and Content-Usage headers). Its oracle, SignalsOracle, is written
// by hand in signals_oracle.go. The agent the site addresses by name is
// SignalsAgent; "otherbot" is addressed too and must be ignored.
const (
	HostMeta        = "meta"        // <meta name="robots">, <meta name="heedbot">, rel="nofollow"
	HostRobotsTag   = "robotstag"   // X-Robots-Tag: with and without an agent prefix, on HTML and text
	HostUsage       = "usage"       // Content-Usage rules in robots.txt
	HostUsageHeader = "usageheader" // Content-Usage response headers

	// SignalsAgent is the product token the signals site names.
	SignalsAgent = "heedbot"
)

var signalsLayout = []struct {
	name  string
	addr  int
	build func(*scenario) *scenarioHost
}{
	{HostMeta, 40, (*scenario).metaHost},
	{HostRobotsTag, 41, (*scenario).robotsTagHost},
	{HostUsage, 42, (*scenario).usageHost},
	{HostUsageHeader, 43, (*scenario).usageHeaderHost},
}

// StartSignals starts the signals site. Seeds returns every host's root.
func StartSignals(opts ...Option) (*Site, error) {
	cfg := newConfig(opts)
	plans := make([]hostPlan, len(signalsLayout))
	for i, l := range signalsLayout {
		plans[i] = hostPlan{name: l.name, ip: fmt.Sprintf("127.0.0.%d", l.addr)}
	}
	return start(cfg, plans, func(s *Site) error {
		b := &scenario{s: s}
		for _, l := range signalsLayout {
			h := l.build(b)
			if h.err != nil {
				return fmt.Errorf("host %s: %w", l.name, h.err)
			}
			s.byName[l.name].content = h
			s.seeds = append(s.seeds, s.byName[l.name].BaseURL)
		}
		return nil
	})
}

// signalPage is a page with extra markup in its head, links written as
// given (rel included) and extra response headers.
type signalPage struct {
	uri, title string
	head       string            // raw HTML placed in <head>
	links      []string          // plain links
	rawLinks   []string          // <a> elements written as given
	headers    map[string]string // response headers
	ctype      string            // default HTML
	body       string            // for a non-HTML page
}

func (p signalPage) route() route {
	body := []byte(p.body)
	ctype := p.ctype
	if ctype == "" {
		ctype = ctypeHTML
		var b strings.Builder
		b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(p.title) + "</title>\n")
		if p.head != "" {
			b.WriteString(p.head + "\n")
		}
		b.WriteString("</head>\n<body>\n<h1>" + html.EscapeString(p.title) + "</h1>\n<ul>\n")
		for _, l := range p.links {
			b.WriteString(`<li><a href="` + html.EscapeString(l) + `">` + html.EscapeString(l) + "</a></li>\n")
		}
		for _, l := range p.rawLinks {
			b.WriteString("<li>" + l + "</li>\n")
		}
		b.WriteString("</ul>\n</body></html>\n")
		body = []byte(b.String())
	}
	rt := static(http.StatusOK, ctype, body, "")
	for k, v := range p.headers {
		rt = withHeader(k, v, rt)
	}
	return rt
}

// addSignal declares a signal page; its plain and raw links are what the
// oracle's page view lists.
func (h *scenarioHost) addSignal(p signalPage) {
	links := append([]string(nil), p.links...)
	for _, raw := range p.rawLinks {
		if i := strings.Index(raw, `href="`); i >= 0 {
			rest := raw[i+len(`href="`):]
			links = append(links, rest[:strings.IndexByte(rest, '"')])
		}
	}
	pp := &page{uri: p.uri, title: p.title, links: links, serve: p.route(), final: http.StatusOK}
	h.add(pp)
}

func (b *scenario) metaHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().group("*").rule("Allow: /").file())
	h.addSignal(signalPage{uri: "/", title: "meta: home",
		links: []string{"/nofollow", "/agent", "/other-agent", "/noindex", "/rel", "/nf/also", "/deep"}})
	// /nf/late is held back on /nofollow, then reached through /deep and
	// /deeper: it is fetched and has no record.
	h.addSignal(signalPage{uri: "/nofollow", title: "meta robots nofollow",
		head:  `<meta name="robots" content="nofollow">`,
		links: []string{"/nf/only", "/nf/also", "/nf/late"}})
	h.addSignal(signalPage{uri: "/deep", title: "meta: deep", links: []string{"/deeper"}})
	h.addSignal(signalPage{uri: "/deeper", title: "meta: deeper", links: []string{"/nf/late"}})
	h.addSignal(signalPage{uri: "/agent", title: "meta for heedbot",
		head:  `<meta name="HeedBot" content="nofollow, noarchive">`,
		links: []string{"/agent/only"}})
	h.addSignal(signalPage{uri: "/other-agent", title: "meta for another crawler",
		head:  `<meta name="otherbot" content="nofollow, noindex">`,
		links: []string{"/other/followed"}})
	h.addSignal(signalPage{uri: "/noindex", title: "meta robots noindex",
		head: `<meta name="robots" content="noindex">`})
	h.addSignal(signalPage{uri: "/rel", title: "a rel=nofollow link",
		rawLinks: []string{`<a rel="nofollow ugc" href="/rel/target">hint</a>`}})
	for _, u := range []string{"/nf/only", "/nf/also", "/nf/late", "/agent/only", "/other/followed", "/rel/target"} {
		h.addSignal(signalPage{uri: u, title: "meta: " + u})
	}
	return h
}

func (b *scenario) robotsTagHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().group("*").rule("Allow: /").file())
	h.addSignal(signalPage{uri: "/", title: "robotstag: home",
		links: []string{"/plain", "/agent", "/other-agent", "/doc.txt", "/both"}})
	h.addSignal(signalPage{uri: "/plain", title: "X-Robots-Tag without an agent",
		headers: map[string]string{"X-Robots-Tag": "nofollow"},
		links:   []string{"/plain/only"}})
	h.addSignal(signalPage{uri: "/agent", title: "X-Robots-Tag for heedbot",
		headers: map[string]string{"X-Robots-Tag": "heedbot: none"},
		links:   []string{"/agent/only"}})
	h.addSignal(signalPage{uri: "/other-agent", title: "X-Robots-Tag for another crawler",
		headers: map[string]string{"X-Robots-Tag": "otherbot: nofollow, noindex"},
		links:   []string{"/other/followed"}})
	h.addSignal(signalPage{uri: "/doc.txt", ctype: ctypeText, body: "plain text\n",
		headers: map[string]string{"X-Robots-Tag": "noindex, noai"}})
	h.addSignal(signalPage{uri: "/both", title: "several directives, one list",
		headers: map[string]string{"X-Robots-Tag": "noarchive, unavailable_after: 25 Jun 2030 15:00:00 PST"}})
	for _, u := range []string{"/plain/only", "/agent/only", "/other/followed"} {
		h.addSignal(signalPage{uri: u, title: "robotstag: " + u})
	}
	return h
}

// UsageRobotsTxt is the usage host's robots.txt, line by line as the
// oracle cites it.
var UsageRobotsTxt = []string{
	"User-agent: *",                        // 1
	"Allow: /",                             // 2
	"Disallow: /private/",                  // 3
	"Content-Usage: train-ai=n",            // 4: no path: every path
	"Content-Usage: /open/ train-ai=y",     // 5
	"Content-Usage: /conflict/ train-ai=y", // 6: identical paths,
	"Content-Usage: /conflict/ train-ai=n", // 7: the n wins
	"Content-Usage: /search/ search=n",     // 8: another category
}

func (b *scenario) usageHost() *scenarioHost {
	h := newScenarioHost()
	body := []byte(strings.Join(UsageRobotsTxt, "\n") + "\n")
	h.routes["/robots.txt"] = static(http.StatusOK, ctypeText, body, "")
	h.outcome = robotsOutcome{status: http.StatusOK, file: newRobots().group("*").rule("Allow: /").rule("Disallow: /private/", "/private/x").file()}
	h.addSignal(signalPage{uri: "/", title: "usage: home",
		links: []string{"/open/a", "/conflict/a", "/search/a", "/private/x"}})
	for _, u := range []string{"/open/a", "/conflict/a", "/search/a"} {
		h.addSignal(signalPage{uri: u, title: "usage: " + u})
	}
	return h
}

func (b *scenario) usageHeaderHost() *scenarioHost {
	h := newScenarioHost()
	h.robots(newRobots().group("*").rule("Allow: /").file())
	h.addSignal(signalPage{uri: "/", title: "usageheader: home",
		links: []string{"/n", "/y", "/malformed", "/several"}})
	h.addSignal(signalPage{uri: "/n", title: "Content-Usage: train-ai=n",
		headers: map[string]string{"Content-Usage": "train-ai=n"}})
	h.addSignal(signalPage{uri: "/y", title: "Content-Usage: train-ai=y",
		headers: map[string]string{"Content-Usage": "train-ai=y, search=n"}})
	h.addSignal(signalPage{uri: "/malformed", title: "Content-Usage that does not parse",
		headers: map[string]string{"Content-Usage": "Train-AI=n"}})
	h.addSignal(signalPage{uri: "/several", title: "unknown keys and parameters ignored",
		headers: map[string]string{"Content-Usage": "foo=n, train-ai=n;why=\"x\""}})
	return h
}

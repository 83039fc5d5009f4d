package testweb

import (
	"net/url"

	"github.com/heedcrawl/heed/skiplog"
)

// Expected is the oracle's account of a crawl of the whole site from
// [Site.Seeds] by a crawler that follows RFC 9309 and heed's contracts:
// which URLs it fetches, and for every other URL it discovers, why not.
//
// URLs are keyed in canonical form: lower-case scheme and host, no
// default port, no fragment, path and query exactly as linked (never
// re-ordered or re-encoded).
type Expected struct {
	// Agent is the product token the expectation is for.
	Agent string
	// Fetched holds every URL the crawler requests, redirect hops
	// included (they answer 3xx).
	Fetched map[string]bool
	// Status is the status each fetched URL ends with: 200, 404, the
	// redirect code of a hop; 200 for the rate-limited pages, which
	// succeed on their retry.
	Status map[string]int
	// Skipped holds every discovered URL that is not fetched, and why.
	// The one URL that may be both fetched and skipped is the target of a
	// redirect loop: it was fetched at the start of the chain, and the
	// redirect back to it is refused.
	Skipped map[string]ExpectedSkip
}

// ExpectedSkip is why one URL is not fetched, with the robots.txt
// evidence heed's skip log must carry.
type ExpectedSkip struct {
	// Reason is the skip-log reason.
	Reason skiplog.Reason
	// RobotsURL is the robots.txt of the URL's authority (for
	// robots-disallow, robots-unreachable and redirect-blocked): the
	// original authority's even when the file was reached by redirects.
	RobotsURL string
	// RobotsStatus is the status of the robots.txt answer the decision
	// rests on (of the last redirect hop); 0 for a timeout.
	RobotsStatus int
	// Line is the 1-based line of the deciding rule in the robots.txt
	// body that was served; 0 when no rule decided.
	Line int
	// Rule is that line exactly as served.
	Rule string
	// Group lists the user-agent values of the group that applied, as
	// written; GroupLines are their lines.
	Group      []string
	GroupLines []int
	// Via is, for redirect reasons, the URL whose redirect was refused.
	Via string
}

// ExpectOption adjusts what the oracle assumes about the crawler.
type ExpectOption func(*expectConfig)

type expectConfig struct {
	redirectLimit int
}

// RedirectLimit says how many page redirects the crawler follows (default
// [DefaultRedirectLimit]); the target of the next one is skipped with
// reason redirect-limit.
func RedirectLimit(n int) ExpectOption {
	return func(c *expectConfig) {
		if n >= 0 {
			c.redirectLimit = n
		}
	}
}

// Expected returns what a whole-site crawl by agent should do.
//
// The oracle walks the declared links breadth-first from Seeds, following
// the links of fetched pages only, and the Location of redirects. It
// decides each URL from hand-written annotations, never by matching
// robots.txt patterns: every rule line of every declared robots.txt lists
// the URIs it decides as disallowed, and the group is chosen by declared
// user-agent tokens (equal to agent ignoring case, else "*"). So the
// oracle is right for HeedBot (the case every host was written for), for
// any other token named in a robots.txt ("alphabot"), and for tokens
// named nowhere ("OtherBot", which gets the "*" groups).
//
// Assumptions, each a heed contract: robots.txt is fetched once per
// authority (the changing host stays on version 1); the flaky host's
// robots.txt is retried until it recovers; the slow host's robots.txt
// times out; only the site's hosts are in scope (see [Site.Domains]);
// sitemaps are not followed (see [Site.ExpectedSitemaps]); a redirect
// target that robots.txt disallows is skipped as redirect-blocked.
func (s *Site) Expected(agent string, opts ...ExpectOption) Expected {
	cfg := expectConfig{redirectLimit: DefaultRedirectLimit}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	o := &oracle{s: s, agent: agent, cfg: cfg, seen: map[string]bool{}, e: Expected{
		Agent: agent, Fetched: map[string]bool{}, Status: map[string]int{}, Skipped: map[string]ExpectedSkip{},
	}}
	var queue []string
	push := func(u string) {
		if !o.seen[u] {
			o.seen[u] = true
			queue = append(queue, u)
		}
	}
	for _, seed := range s.seeds {
		if u, ok := parseCanonical(nil, seed); ok {
			push(u)
		}
	}
	// Every URL enters the queue once, and the site is finite.
	for i := 0; i < len(queue); i++ {
		for _, l := range o.visit(queue[i]) {
			push(l)
		}
	}
	return o.e
}

type oracle struct {
	s     *Site
	agent string
	cfg   expectConfig
	seen  map[string]bool
	e     Expected
}

// visit decides u and, when it is fetched, returns the URLs it links to.
func (o *oracle) visit(u string) []string {
	h, uri := o.locate(u)
	if h == nil {
		o.e.Skipped[u] = ExpectedSkip{Reason: skiplog.Offsite}
		return nil
	}
	if sk := o.s.verdict(h, o.agent, uri); sk != nil {
		o.e.Skipped[u] = *sk
		return nil
	}
	chain := []string{u}
	for {
		o.e.Fetched[u] = true
		v := h.content.page(uri)
		o.e.Status[u] = v.status
		base := mustParse(u)
		if v.location == "" {
			out := make([]string, 0, len(v.links))
			for _, l := range v.links {
				if abs, ok := parseCanonical(base, l); ok {
					out = append(out, abs)
				}
			}
			return out
		}
		next, ok := parseCanonical(base, v.location)
		if !ok {
			o.e.Skipped[v.location] = ExpectedSkip{Reason: skiplog.InvalidURL, Via: u}
			return nil
		}
		switch {
		case contains(chain, next):
			o.e.Skipped[next] = ExpectedSkip{Reason: skiplog.RedirectLoop, Via: u}
			return nil
		case len(chain) > o.cfg.redirectLimit:
			o.e.Skipped[next] = ExpectedSkip{Reason: skiplog.RedirectLimit, Via: u}
			return nil
		}
		nh, nuri := o.locate(next)
		if nh == nil {
			o.e.Skipped[next] = ExpectedSkip{Reason: skiplog.Offsite, Via: u}
			return nil
		}
		if sk := o.s.verdict(nh, o.agent, nuri); sk != nil {
			if sk.Reason == skiplog.RobotsDisallow {
				sk.Reason = skiplog.RedirectBlocked
			}
			sk.Via = u
			o.e.Skipped[next] = *sk
			return nil
		}
		if o.seen[next] {
			// Discovered elsewhere too: it is fetched once, there.
			return nil
		}
		o.seen[next] = true
		chain = append(chain, next)
		u, h, uri = next, nh, nuri
	}
}

// locate returns the host and request URI of a canonical URL; nil when
// the URL is not on the site.
func (o *oracle) locate(u string) (*Host, string) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, ""
	}
	h := o.s.byAuthority[authorityOf(pu)]
	if h == nil {
		return nil, ""
	}
	return h, requestURI(pu)
}

// verdict decides from the annotations whether agent may fetch uri on h;
// nil means it may.
func (s *Site) verdict(h *Host, agent, uri string) *ExpectedSkip {
	out := h.content.robotsFor(agent)
	if out.unreachable {
		return &ExpectedSkip{Reason: skiplog.RobotsUnreachable, RobotsURL: h.RobotsURL, RobotsStatus: out.status}
	}
	if out.file == nil {
		return nil
	}
	line, agents, agentLines := out.file.decide(agent, uri)
	if line == 0 {
		return nil
	}
	return &ExpectedSkip{
		Reason: skiplog.RobotsDisallow, RobotsURL: h.RobotsURL, RobotsStatus: out.status,
		Line: line, Rule: out.file.lines[line-1].text, Group: agents, GroupLines: agentLines,
	}
}

// parseCanonical resolves ref against base (nil for an absolute ref) and
// returns its canonical form.
func parseCanonical(base *url.URL, ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	return canonical(u)
}

// mustParse parses a URL the oracle itself produced in canonical form.
func mustParse(u string) *url.URL {
	pu, err := url.Parse(u)
	if err != nil {
		return &url.URL{}
	}
	return pu
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

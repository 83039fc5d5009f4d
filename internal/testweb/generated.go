package testweb

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Generated describes a synthetic site for benchmarks. Everything about it
// follows from the fields, Seed included: two sites with the same fields
// serve the same pages (up to the kernel-chosen ports in cross-host links).
//
// Host i is named "g<i>" and listens on 127.0.0.<2+i> (hosts beyond the
// 253rd share addresses, on other ports). Its pages are "/" and
// "/p/1" ... "/p/<PagesPerHost-1>"; page k always links to page k+1 (the
// last one to "/"), so every page is reachable from the host's root, plus
// LinksPerPage-1 links drawn from Seed: to a disallowed URL "/d/<n>" with
// probability DisallowFraction, else to a page of another host with
// probability CrossHostFraction, else to a page of the same host. Each
// host's robots.txt is
//
//	# heed generated site, host g<i>
//	User-agent: *
//	Disallow: /d/
//	Crawl-delay: <CrawlDelay>   (only when CrawlDelay > 0)
type Generated struct {
	Hosts             int
	PagesPerHost      int
	PageBytes         int // size of each page; at least the HTML the links need
	LinksPerPage      int // at least 1
	CrossHostFraction float64
	CrawlDelay        float64 // seconds; 0 for none
	DisallowFraction  float64
	Latency           time.Duration // added to every response, on top of WithLatency
	Seed              int64
}

// DefaultGenerated is the benchmark site heed's crawl benchmarks use: 50
// hosts of 400 pages of 8 KiB with 10 links each.
func DefaultGenerated() Generated {
	return Generated{
		Hosts: 50, PagesPerHost: 400, PageBytes: 8 << 10, LinksPerPage: 10,
		CrossHostFraction: 0.1, DisallowFraction: 0.05, Seed: 1,
	}
}

// Limits on generated sites, to keep a mistake from exhausting the machine.
const (
	maxGeneratedHosts = 1000
	maxGeneratedPages = 1 << 20
	maxGeneratedBytes = 1 << 20
	maxGeneratedLinks = 1000
)

// ErrInvalidGenerated is wrapped by StartGenerated's error for a
// description it cannot serve.
var ErrInvalidGenerated = errors.New("testweb: invalid generated site")

func (g Generated) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidGenerated, fmt.Sprintf(format, args...))
	}
	switch {
	case g.Hosts < 1 || g.Hosts > maxGeneratedHosts:
		return bad("Hosts %d not in [1, %d]", g.Hosts, maxGeneratedHosts)
	case g.PagesPerHost < 1 || g.PagesPerHost > maxGeneratedPages:
		return bad("PagesPerHost %d not in [1, %d]", g.PagesPerHost, maxGeneratedPages)
	case g.PageBytes < 0 || g.PageBytes > maxGeneratedBytes:
		return bad("PageBytes %d not in [0, %d]", g.PageBytes, maxGeneratedBytes)
	case g.LinksPerPage < 1 || g.LinksPerPage > maxGeneratedLinks:
		return bad("LinksPerPage %d not in [1, %d]", g.LinksPerPage, maxGeneratedLinks)
	case !(g.CrossHostFraction >= 0 && g.CrossHostFraction <= 1):
		return bad("CrossHostFraction %v not in [0, 1]", g.CrossHostFraction)
	case !(g.DisallowFraction >= 0 && g.DisallowFraction <= 1):
		return bad("DisallowFraction %v not in [0, 1]", g.DisallowFraction)
	case !(g.CrawlDelay >= 0 && g.CrawlDelay <= 3600):
		return bad("CrawlDelay %v not in [0, 3600]", g.CrawlDelay)
	case g.Latency < 0:
		return bad("Latency %v is negative", g.Latency)
	}
	return nil
}

// StartGenerated starts a synthetic site described by g. Seeds returns
// every host's root.
func StartGenerated(g Generated, opts ...Option) (*Site, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	cfg.latency += g.Latency
	plans := make([]hostPlan, g.Hosts)
	for i := range plans {
		plans[i] = hostPlan{name: "g" + strconv.Itoa(i), ip: fmt.Sprintf("127.0.0.%d", 2+i%253)}
	}
	return start(cfg, plans, func(s *Site) error {
		gen := newGenerator(g, s.hosts)
		for i, h := range s.hosts {
			h.content = gen.host(i)
			s.seeds = append(s.seeds, h.BaseURL)
		}
		return nil
	})
}

// generator renders generated pages on request.
type generator struct {
	g      Generated
	auths  []string
	filler []byte
	bufs   sync.Pool
}

func newGenerator(g Generated, hosts []*Host) *generator {
	gen := &generator{g: g, bufs: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
	for _, h := range hosts {
		gen.auths = append(gen.auths, h.Authority)
	}
	// Page text is a slice of this, at a position drawn per page: copying
	// is all a request costs.
	words := []string{"heed", "crawls", "politely", "robots", "txt", "each", "host", "asks", "for", "its",
		"own", "pace", "and", "every", "skipped", "url", "is", "accounted", "the", "rule", "says", "why"}
	r := newRNG(uint64(g.Seed), 0, 0, 0)
	size := max(2*g.PageBytes, 64<<10)
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(words[r.next()%uint64(len(words))])
		b.WriteByte(' ')
	}
	gen.filler = []byte(b.String())
	return gen
}

func (gen *generator) host(i int) *genHost {
	r := newRobots().comment("heed generated site, host g"+strconv.Itoa(i)).
		group("*").
		ruleFn("Disallow: /d/", func(uri string) bool { return strings.HasPrefix(uri, "/d/") })
	if gen.g.CrawlDelay > 0 {
		r.rule("Crawl-delay: " + strconv.FormatFloat(gen.g.CrawlDelay, 'f', -1, 64))
	}
	f := r.file()
	return &genHost{gen: gen, index: i, robots: f, robotsBody: f.body()}
}

// genHost is one host of a generated site.
type genHost struct {
	gen        *generator
	index      int
	robots     *robotsFile
	robotsBody []byte
}

func (h *genHost) robotsFor(string) robotsOutcome {
	return robotsOutcome{status: http.StatusOK, file: h.robots}
}

// pageURI is the request URI of page k.
func pageURI(k int) string {
	if k == 0 {
		return "/"
	}
	return "/p/" + strconv.Itoa(k)
}

// parse maps a request URI to a page number; disallowed reports a "/d/"
// URI. ok is false for anything the site does not serve.
func (h *genHost) parse(uri string) (k int, disallowed, ok bool) {
	if uri == "/" {
		return 0, false, true
	}
	var num string
	switch {
	case strings.HasPrefix(uri, "/p/"):
		num = uri[3:]
	case strings.HasPrefix(uri, "/d/"):
		num, disallowed = uri[3:], true
	default:
		return 0, false, false
	}
	k, err := strconv.Atoi(num)
	if err != nil || k < 0 || k >= h.gen.g.PagesPerHost || strconv.Itoa(k) != num || (k == 0 && !disallowed) {
		return 0, false, false
	}
	return k, disallowed, true
}

// links returns the hrefs of page k, as written in its HTML.
func (h *genHost) links(k int) []string {
	g := h.gen.g
	n := g.PagesPerHost
	out := make([]string, 0, g.LinksPerPage)
	out = append(out, pageURI((k+1)%n))
	for j := 1; j < g.LinksPerPage; j++ {
		r := newRNG(uint64(g.Seed), uint64(h.index), uint64(k), uint64(j))
		switch {
		case r.float() < g.DisallowFraction:
			out = append(out, "/d/"+strconv.Itoa(int(r.next()%uint64(n))))
		case g.Hosts > 1 && r.float() < g.CrossHostFraction:
			other := (h.index + 1 + int(r.next()%uint64(g.Hosts-1))) % g.Hosts
			out = append(out, h.gen.auths[other]+pageURI(int(r.next()%uint64(n))))
		default:
			out = append(out, pageURI(int(r.next()%uint64(n))))
		}
	}
	return out
}

func (h *genHost) isPage(uri string) bool { return !isInfrastructure(uri) }

func (h *genHost) page(uri string) pageView {
	k, disallowed, ok := h.parse(uri)
	switch {
	case !ok:
		return pageView{status: http.StatusNotFound}
	case disallowed:
		return pageView{status: http.StatusOK, links: []string{"/"}}
	}
	return pageView{status: http.StatusOK, links: h.links(k)}
}

func (h *genHost) serve(_ *Site, w http.ResponseWriter, r *http.Request) string {
	if r.RequestURI == "/robots.txt" {
		return static(http.StatusOK, ctypeText, h.robotsBody, "")(nil, w, r)
	}
	k, disallowed, ok := h.parse(r.RequestURI)
	if !ok {
		return static(http.StatusNotFound, ctypeText, []byte("404 not found\n"), "")(nil, w, r)
	}
	buf := h.gen.bufs.Get().(*bytes.Buffer)
	defer h.gen.bufs.Put(buf)
	buf.Reset()
	h.render(buf, k, disallowed)
	w.Header().Set("Content-Type", ctypeHTML)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
	return ""
}

// render writes page k (or disallowed page k) into buf: PageBytes long
// unless the links alone need more.
func (h *genHost) render(buf *bytes.Buffer, k int, disallowed bool) {
	title := "g" + strconv.Itoa(h.index) + " page " + strconv.Itoa(k)
	links := []string{"/"}
	if disallowed {
		title = "g" + strconv.Itoa(h.index) + " disallowed " + strconv.Itoa(k)
	} else {
		links = h.links(k)
	}
	buf.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>")
	buf.WriteString(title)
	buf.WriteString("</title></head>\n<body>\n<h1>")
	buf.WriteString(title)
	buf.WriteString("</h1>\n<ul>\n")
	for _, l := range links {
		buf.WriteString(`<li><a href="`)
		buf.WriteString(l)
		buf.WriteString(`">`)
		buf.WriteString(l)
		buf.WriteString("</a></li>\n")
	}
	buf.WriteString("</ul>\n<p>")
	const tail = "</p>\n</body></html>\n"
	if need := h.gen.g.PageBytes - buf.Len() - len(tail); need > 0 {
		r := newRNG(uint64(h.gen.g.Seed), uint64(h.index), uint64(k), 1<<32)
		off := int(r.next() % uint64(len(h.gen.filler)-need+1))
		buf.Write(h.gen.filler[off : off+need])
	}
	buf.WriteString(tail)
}

// rng is splitmix64: tiny, fast and the same on every platform, which is
// what determinism from a seed needs.
type rng struct{ s uint64 }

func newRNG(parts ...uint64) rng {
	var r rng
	for _, p := range parts {
		r.s ^= p
		r.next()
	}
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

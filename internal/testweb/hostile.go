package testweb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Hostile is a set of loopback authorities that misbehave on purpose, the
// web heed must survive: hosts that accept a connection and never answer,
// answers sent one byte at a time, endless and huge bodies, pages with
// huge link counts, robots.txt rate limits with long Retry-After, absurd
// Crawl-delay values, and sitemaps that list foreign authorities or more
// URLs than a sitemap may hold.
//
// Tests crawl it beside a healthy [Site] (often [StartGenerated]) and
// check that the healthy hosts are not held up, that memory stays bounded
// and that no request reaches an authority outside the crawl's scope.
// Every hostile authority is on 127.0.0.1 with its own port, so each is
// its own authority, and every request (and every connection accepted by
// a dead host) is recorded in [Hostile.Hits].
//
// Like [Site], it is deterministic and loopback only; start a new one for
// each crawl a test makes.
type Hostile struct {
	// Dead are authorities that accept TCP connections, read the request
	// and never answer; the connection stays open until Close.
	Dead []string
	// Trickle serves its robots.txt (allow everything) and its pages
	// (/, /a, /b) one byte at a time, [HostileConfig.TrickleEvery] apart.
	Trickle string
	// Bodies serves /endless (a body that never ends), /huge (a body
	// announced and sent as 1 GiB) and / linking to both.
	Bodies string
	// Links serves /links: one page of [HostileConfig.LinkPageBytes] of
	// `<a href=/x>a</a>`, repeated; and /x, a small page.
	Links string
	// RateLimited answers its robots.txt with 429 and Retry-After: 3600.
	RateLimited string
	// HugeDelay's robots.txt asks for Crawl-delay: 100000000000.
	HugeDelay string
	// Delay60's robots.txt asks for Crawl-delay: 60.
	Delay60 string
	// Silent answers its robots.txt (allow everything) and / (links to
	// /s/0 ... /s/19), and never answers any other page: the request is
	// read and the connection held until Close.
	Silent string
	// Sitemaps serves /foreign.xml, a sitemap listing pages of the dead
	// authorities and of other ports, /big.xml, a sitemap of 60,000 URLs
	// of its own, and the pages /p/N both list.
	Sitemaps string

	cfg     HostileConfig
	servers []*http.Server
	dead    []net.Listener
	done    chan struct{}

	mu    sync.Mutex
	hits  []HostileHit
	conns []net.Conn
	wg    sync.WaitGroup
}

// HostileHit is one request a hostile authority received; for a dead
// authority, Path is what the request line asked for, read before the
// silence.
type HostileHit struct {
	Time      time.Time
	Authority string
	Path      string
}

// HostileConfig says how many dead authorities to start and how slow the
// trickling host is.
type HostileConfig struct {
	// Dead is the number of authorities that never answer.
	Dead int
	// TrickleEvery is the pause between two bytes of the trickling host;
	// default 20 ms.
	TrickleEvery time.Duration
	// LinkPageBytes is the size of the /links page; default 10 MiB.
	LinkPageBytes int
	// BigSitemapURLs is how many URLs /big.xml lists; default 60,000.
	BigSitemapURLs int
}

// HostileLinkTag is the link the /links page repeats.
const HostileLinkTag = `<a href=/x>a</a>`

// StartHostile starts the hostile authorities. Close them when done.
func StartHostile(cfg HostileConfig) (*Hostile, error) {
	if cfg.TrickleEvery <= 0 {
		cfg.TrickleEvery = 20 * time.Millisecond
	}
	if cfg.LinkPageBytes <= 0 {
		cfg.LinkPageBytes = 10 << 20
	}
	if cfg.BigSitemapURLs <= 0 {
		cfg.BigSitemapURLs = 60_000
	}
	if cfg.Dead < 0 || cfg.Dead > 1000 {
		return nil, fmt.Errorf("testweb: %d dead hosts is not in [0, 1000]", cfg.Dead)
	}
	h := &Hostile{cfg: cfg, done: make(chan struct{})}
	for i := 0; i < cfg.Dead; i++ {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("testweb: dead host: %w", err)
		}
		auth := "http://" + ln.Addr().String()
		h.dead = append(h.dead, ln)
		h.Dead = append(h.Dead, auth)
		h.wg.Add(1)
		go h.acceptDead(ln, auth)
	}
	hosts := []struct {
		dst   *string
		serve func(auth string, w http.ResponseWriter, r *http.Request)
	}{
		{&h.Trickle, h.serveTrickle},
		{&h.Bodies, h.serveBodies},
		{&h.Links, h.serveLinks},
		{&h.RateLimited, h.serveRateLimited},
		{&h.HugeDelay, h.serveDelay("100000000000")},
		{&h.Delay60, h.serveDelay("60")},
		{&h.Sitemaps, h.serveSitemaps},
		{&h.Silent, h.serveSilent},
	}
	for _, spec := range hosts {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("testweb: hostile host: %w", err)
		}
		auth := "http://" + ln.Addr().String()
		*spec.dst = auth
		serve := spec.serve
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.record(auth, r.URL.RequestURI())
			serve(auth, w, r)
		})}
		h.servers = append(h.servers, srv)
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return
			}
		}()
	}
	return h, nil
}

// Close stops every hostile authority, hangs up on the connections the
// dead ones hold and waits for the handlers to return. It is safe to call
// more than once.
func (h *Hostile) Close() {
	h.mu.Lock()
	select {
	case <-h.done:
		h.mu.Unlock()
		return
	default:
	}
	close(h.done)
	for _, c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	for _, ln := range h.dead {
		ln.Close()
	}
	for _, srv := range h.servers {
		srv.Close()
	}
	h.wg.Wait()
}

// Hits returns the requests received so far, in arrival order.
func (h *Hostile) Hits() []HostileHit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]HostileHit(nil), h.hits...)
}

// HitsOn returns the requests an authority received.
func (h *Hostile) HitsOn(authority string) []HostileHit {
	var out []HostileHit
	for _, hit := range h.Hits() {
		if hit.Authority == authority {
			out = append(out, hit)
		}
	}
	return out
}

func (h *Hostile) record(auth, path string) {
	h.mu.Lock()
	h.hits = append(h.hits, HostileHit{Time: time.Now(), Authority: auth, Path: path})
	h.mu.Unlock()
}

// acceptDead accepts connections and keeps them open without a word.
func (h *Hostile) acceptDead(ln net.Listener, auth string) {
	defer h.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		h.mu.Lock()
		select {
		case <-h.done:
			h.mu.Unlock()
			c.Close()
			return
		default:
		}
		h.conns = append(h.conns, c)
		h.mu.Unlock()
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			line, _ := bufio.NewReader(c).ReadString('\n')
			path := "?"
			if f := strings.Fields(line); len(f) >= 2 {
				path = f[1]
			}
			h.record(auth, path)
			// Swallow whatever else comes, and never answer.
			io.Copy(io.Discard, c)
		}()
	}
}

// sleep waits d or until Close; false means Close came first.
func (h *Hostile) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-h.done:
		return false
	case <-t.C:
		return true
	}
}

func (h *Hostile) serveTrickle(_ string, w http.ResponseWriter, r *http.Request) {
	var body string
	switch r.URL.Path {
	case "/robots.txt":
		body = "User-agent: *\nAllow: /\n"
	case "/":
		body = "<a href=/a>a</a><a href=/b>b</a>"
	case "/a", "/b":
		body = "<p>slow</p>"
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for i := 0; i < len(body); i++ {
		if _, err := io.WriteString(w, body[i:i+1]); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		if !h.sleep(h.cfg.TrickleEvery) {
			return
		}
	}
}

func (h *Hostile) serveBodies(_ string, w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	case "/":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<a href=/endless>endless</a><a href=/huge>huge</a>")
	case "/endless", "/huge":
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/huge" {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		}
		chunk := []byte(strings.Repeat("<p>more</p>", 6000)) // about 64 KiB
		for sent := 0; sent < 1<<30; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			select {
			case <-h.done:
				return
			default:
			}
		}
	default:
		http.NotFound(w, r)
	}
}

func (h *Hostile) serveLinks(_ string, w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	case "/links":
		w.Header().Set("Content-Type", "text/html")
		n := h.cfg.LinkPageBytes / len(HostileLinkTag)
		w.Header().Set("Content-Length", strconv.Itoa(n*len(HostileLinkTag)))
		chunk := []byte(strings.Repeat(HostileLinkTag, 4096))
		for n > 0 {
			k := min(n, 4096)
			if _, err := w.Write(chunk[:k*len(HostileLinkTag)]); err != nil {
				return
			}
			n -= k
		}
	case "/x":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>x</p>")
	default:
		http.NotFound(w, r)
	}
}

func (h *Hostile) serveRateLimited(_ string, w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	io.WriteString(w, "<p>page</p>")
}

func (h *Hostile) serveDelay(delay string) func(string, http.ResponseWriter, *http.Request) {
	return func(_ string, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nCrawl-delay: "+delay+"\nAllow: /\n")
		case "/", "/a", "/b":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<a href=/a>a</a><a href=/b>b</a>")
		default:
			http.NotFound(w, r)
		}
	}
}

// SilentPages is how many never-answered pages the Silent host's root
// links to.
const SilentPages = 20

func (h *Hostile) serveSilent(_ string, w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	case "/":
		w.Header().Set("Content-Type", "text/html")
		for i := 0; i < SilentPages; i++ {
			fmt.Fprintf(w, "<a href=/s/%d>%d</a>\n", i, i)
		}
	default:
		select {
		case <-h.done:
		case <-r.Context().Done():
		}
	}
}

func (h *Hostile) serveSitemaps(auth string, w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/robots.txt":
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	case r.URL.Path == "/foreign.xml":
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n")
		fmt.Fprintf(w, "<url><loc>%s/p/0</loc></url>\n", auth)
		for _, d := range h.Dead {
			fmt.Fprintf(w, "<url><loc>%s/p/foreign</loc></url>\n", d)
		}
		// Other ports of the same address, and a well-known one.
		fmt.Fprintf(w, "<url><loc>http://127.0.0.1:1/p/foreign</loc></url>\n")
		fmt.Fprintf(w, "<url><loc>%s/p/1</loc></url>\n", auth)
		io.WriteString(w, "</urlset>\n")
	case r.URL.Path == "/big.xml":
		w.Header().Set("Content-Type", "application/xml")
		bw := bufio.NewWriterSize(w, 64<<10)
		io.WriteString(bw, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n")
		for i := 0; i < h.cfg.BigSitemapURLs; i++ {
			fmt.Fprintf(bw, "<url><loc>%s/p/%d</loc></url>\n", auth, i)
		}
		io.WriteString(bw, "</urlset>\n")
		bw.Flush()
	case strings.HasPrefix(r.URL.Path, "/p/"):
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>listed</p>")
	default:
		http.NotFound(w, r)
	}
}

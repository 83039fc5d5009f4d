package testweb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Site is a running set of loopback hosts. It is safe for concurrent use.
// Close it when done; a closed Site keeps its hit log and oracle readable.
type Site struct {
	cfg         config
	hosts       []*Host
	byName      map[string]*Host
	byAuthority map[string]*Host
	seeds       []string
	hits        hitLog
	pool        *x509.CertPool
	certPEM     []byte
	transport   *http.Transport

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
	serving  sync.WaitGroup
	done     chan struct{}
}

// Host is one authority of a Site.
type Host struct {
	// Name is the host's role in the site: "main", "delay", ... for the
	// scenario (see the Host* constants), "g0", "g1", ... for generated
	// sites.
	Name string
	// Authority is scheme://ip:port, in canonical form.
	Authority string
	// BaseURL is the host's root URL, Authority + "/".
	BaseURL string
	// RobotsURL is Authority + "/robots.txt".
	RobotsURL string
	// Addr is the ip:port the host listens on.
	Addr string
	// TLS reports whether the host speaks https.
	TLS bool

	content content
	srv     *http.Server
	ln      net.Listener
}

// URL returns the absolute URL of ref (a path with optional query, such as
// "/search?q=x") on h.
func (h *Host) URL(ref string) string {
	if !strings.HasPrefix(ref, "/") {
		ref = "/" + ref
	}
	return h.Authority + ref
}

// content is what a host serves and what the oracle knows about it.
type content interface {
	// serve answers a request and returns the Served label of the hit.
	serve(s *Site, w http.ResponseWriter, r *http.Request) string
	// robotsFor says how the host's robots.txt turns out for agent.
	robotsFor(agent string) robotsOutcome
	// page describes the resource at a request URI for the oracle.
	page(uri string) pageView
	// isPage reports whether a request URI is a page rather than a
	// robots.txt, a robots.txt redirect hop or a sitemap.
	isPage(uri string) bool
}

// isInfrastructure reports the URIs no host ever serves as a page.
func isInfrastructure(uri string) bool {
	return uri == "/robots.txt" || uri == "/sitemap.xml"
}

// hostPlan is a host before it is bound.
type hostPlan struct {
	name string
	ip   string
	tls  bool
}

// start binds every planned host, lets build attach the content (which
// may need every authority, hence after binding), then starts serving.
func start(cfg config, plans []hostPlan, build func(*Site) error) (*Site, error) {
	s := &Site{
		cfg:         cfg,
		byName:      make(map[string]*Host, len(plans)),
		byAuthority: make(map[string]*Host, len(plans)),
		hits:        hitLog{limit: cfg.hitLimit},
		done:        make(chan struct{}),
	}
	var tlsIPs []net.IP
	for _, p := range plans {
		ip := p.ip
		if cfg.singleAddress != "" {
			ip = cfg.singleAddress
		}
		ln, err := net.Listen("tcp4", net.JoinHostPort(ip, "0"))
		if err != nil {
			s.closeListeners()
			return nil, fmt.Errorf("testweb: host %s: %w (on systems with only 127.0.0.1, use WithSingleAddress)", p.name, err)
		}
		addr := ln.Addr().(*net.TCPAddr)
		scheme := "http"
		if p.tls {
			scheme = "https"
			tlsIPs = append(tlsIPs, addr.IP)
		}
		auth := scheme + "://" + net.JoinHostPort(addr.IP.String(), strconv.Itoa(addr.Port))
		h := &Host{
			Name: p.name, Authority: auth, BaseURL: auth + "/", RobotsURL: auth + "/robots.txt",
			Addr: ln.Addr().String(), TLS: p.tls, ln: ln,
		}
		if _, dup := s.byName[p.name]; dup {
			s.closeListeners()
			return nil, fmt.Errorf("testweb: host name %q used twice", p.name)
		}
		s.hosts = append(s.hosts, h)
		s.byName[h.Name] = h
		s.byAuthority[h.Authority] = h
	}
	var cert tls.Certificate
	if len(tlsIPs) > 0 {
		var err error
		cert, s.pool, err = selfSigned(tlsIPs, time.Now())
		if err != nil {
			s.closeListeners()
			return nil, err
		}
		s.certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})
	} else {
		s.pool = x509.NewCertPool()
	}
	s.transport = newTransport(s.pool)
	if err := build(s); err != nil {
		s.closeListeners()
		return nil, err
	}
	errLog := slog.NewLogLogger(cfg.logger.Handler(), slog.LevelWarn)
	for _, h := range s.hosts {
		if h.content == nil {
			s.closeListeners()
			return nil, fmt.Errorf("testweb: host %s has no content", h.Name)
		}
		ln := h.ln
		if h.TLS {
			ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		}
		h.srv = &http.Server{
			Handler:           s.handler(h),
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          errLog,
		}
		s.serving.Add(1)
		go func(srv *http.Server, ln net.Listener) {
			defer s.serving.Done()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				cfg.logger.Warn("testweb: server stopped", "addr", ln.Addr().String(), "err", err)
			}
		}(h.srv, ln)
	}
	return s, nil
}

func (s *Site) closeListeners() {
	for _, h := range s.hosts {
		h.ln.Close()
	}
}

// Close stops every host, wakes any sleeping handler and waits for all
// handlers to return. It is safe to call more than once.
func (s *Site) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	for _, h := range s.hosts {
		if h.srv != nil {
			h.srv.Close()
		} else {
			h.ln.Close()
		}
	}
	s.serving.Wait()
	s.inflight.Wait()
	s.transport.CloseIdleConnections()
}

// Host returns the host called name, or nil.
func (s *Site) Host(name string) *Host { return s.byName[name] }

// HostFor returns the host of an absolute URL or authority, or nil when the
// URL is not on the site.
func (s *Site) HostFor(rawURL string) *Host {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	return s.byAuthority[authorityOf(u)]
}

// Hosts returns every host in a fixed order.
func (s *Site) Hosts() []*Host { return append([]*Host(nil), s.hosts...) }

// Seeds returns the start URLs of a whole-site crawl.
func (s *Site) Seeds() []string { return append([]string(nil), s.seeds...) }

// Domains returns the IP address of every host, without duplicates: the
// allowed-domains list a crawler needs so that the one offsite link of
// the scenario is excluded as offsite.
func (s *Site) Domains() []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range s.hosts {
		ip, _, _ := net.SplitHostPort(h.Addr)
		if !seen[ip] {
			seen[ip] = true
			out = append(out, ip)
		}
	}
	return out
}

// Hits returns every recorded request in arrival order.
func (s *Site) Hits() []Hit { return s.hits.snapshot(nil) }

// HitsFor returns the recorded requests to one authority in arrival order.
func (s *Site) HitsFor(authority string) []Hit {
	if u, err := url.Parse(authority); err == nil && u.Host != "" {
		authority = authorityOf(u)
	}
	return s.hits.snapshot(func(h *Hit) bool { return h.Authority == authority })
}

// DroppedHits returns how many requests were served but not recorded
// because the hit log was full.
func (s *Site) DroppedHits() int64 { return s.hits.droppedCount() }

// CertPool returns the pool that trusts the site's https host.
func (s *Site) CertPool() *x509.CertPool { return s.pool }

// CertPEM returns the https host's certificate (its own CA) as PEM, for
// a program that trusts it from a file (heed's --ca-file); nil when the
// site has no https host.
func (s *Site) CertPEM() []byte { return s.certPEM }

// TLSConfig returns a client TLS configuration that trusts the site's
// https host.
func (s *Site) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}
}

// Transport returns the site's shared transport: no proxy, the https host
// trusted. Close closes its idle connections.
func (s *Site) Transport() *http.Transport { return s.transport }

// Client returns a client on [Site.Transport] that follows redirects the
// way net/http does. Set CheckRedirect on a copy to see single hops.
func (s *Site) Client() *http.Client {
	return &http.Client{Transport: s.transport, Timeout: 30 * time.Second}
}

// handler wraps a host's content with the hit log, the latency and the
// close bookkeeping.
func (s *Site) handler(h *Host) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			http.Error(w, "site closed", http.StatusServiceUnavailable)
			return
		}
		s.inflight.Add(1)
		s.mu.Unlock()
		defer s.inflight.Done()

		slot := s.hits.begin(Hit{
			Time: s.cfg.clock(), Host: h.Name, Authority: h.Authority,
			Method: r.Method, Path: r.RequestURI, UserAgent: r.UserAgent(),
		})
		rec := &statusRecorder{ResponseWriter: w}
		served := ""
		if s.cfg.latency > 0 && !s.sleep(r.Context(), s.cfg.latency) {
			served = "abandoned"
		} else if r.Method != http.MethodGet && r.Method != http.MethodHead {
			rec.Header().Set("Allow", "GET, HEAD")
			http.Error(rec, "method not allowed", http.StatusMethodNotAllowed)
		} else {
			served = h.content.serve(s, rec, r)
		}
		s.hits.finish(slot, rec.status, served, s.cfg.clock())
		if s.cfg.logger.Enabled(r.Context(), slog.LevelDebug) {
			s.cfg.logger.Debug("testweb request", "host", h.Name, "path", r.RequestURI,
				"status", rec.status, "served", served, "user_agent", r.UserAgent())
		}
	})
}

// sleep waits d, and reports false if the request or the site ended first.
func (s *Site) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// statusRecorder remembers the status code a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// authorityOf returns the canonical authority of u: lower-case scheme and
// host, no default port. "" when u is not http(s) or has no host.
func authorityOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || (strings.Contains(host, ":") && net.ParseIP(host) == nil) {
		return ""
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// canonical returns the form in which the oracle keys URLs: canonical
// authority, path and query exactly as written (never re-ordered or
// re-encoded), no fragment. ok is false for URLs that are not absolute
// http(s).
func canonical(u *url.URL) (string, bool) {
	auth := authorityOf(u)
	if auth == "" {
		return "", false
	}
	return auth + requestURI(u), true
}

// requestURI is the path and query of u as written; "/" for an empty path.
func requestURI(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

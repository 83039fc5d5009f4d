package ui

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Server serves heed's pages. Make one with New; it is an http.Handler.
type Server struct {
	mux       *http.ServeMux
	tmpl      map[string]*template.Template
	client    *http.Client
	userAgent string
	agent     string
	monitor   *Monitor
	stateDir  string
	fleet     FleetSource
	logger    *slog.Logger
	now       func() time.Time

	fetchTimeout time.Duration
}

// Option configures a Server.
type Option func(*Server)

// WithMonitor serves the live view of the crawl m watches at /live.
func WithMonitor(m *Monitor) Option { return func(s *Server) { s.monitor = m } }

// WithStateDir serves the job kept in the state directory dir (a crawl's
// --state) at /job, read-only.
func WithStateDir(dir string) Option { return func(s *Server) { s.stateDir = dir } }

// WithFleet serves a fleet's shared counters and queue at /fleet.
func WithFleet(f FleetSource) Option { return func(s *Server) { s.fleet = f } }

// WithAgent sets the product token the tester's form starts with (default
// "HeedBot").
func WithAgent(token string) Option { return func(s *Server) { s.agent = token } }

// WithTransport sets the transport of the tester's robots.txt fetches
// (default a clone of http.DefaultTransport); the fetch limits apply
// whatever it is.
func WithTransport(rt http.RoundTripper) Option {
	return func(s *Server) { s.client.Transport = rt }
}

// WithFetchTimeout sets the timeout of each request of a tester's fetch
// (default DefaultFetchTimeout).
func WithFetchTimeout(d time.Duration) Option { return func(s *Server) { s.fetchTimeout = d } }

// WithUserAgent sets the User-Agent header of the tester's fetches.
func WithUserAgent(ua string) Option { return func(s *Server) { s.userAgent = ua } }

// WithLogger sets where the Server logs template and write errors
// (default: discarded).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.logger = l } }

// New returns a Server with the tester and the pages its options give.
func New(opts ...Option) (*Server, error) {
	s := &Server{
		client:    &http.Client{},
		agent:     "HeedBot",
		userAgent: "heed-robots-tester (+https://github.com/heedcrawl/heed)",
		logger:    slog.New(slog.DiscardHandler),
		now:       time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	if s.fetchTimeout <= 0 {
		s.fetchTimeout = DefaultFetchTimeout
	}
	s.client.Timeout = s.fetchTimeout
	if s.client.Transport == nil {
		s.client.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	// The fetch follows redirects itself (FetchRobots, RFC 9309's rule).
	s.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var err error
	if s.tmpl, err = parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET /static/", http.StripPrefix("/static/", cacheable(http.FileServerFS(static))))
	m.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
	})
	m.HandleFunc("GET /{$}", s.index)
	m.HandleFunc("GET /robots", s.testerForm)
	m.HandleFunc("POST /robots", s.testerSubmit)
	m.HandleFunc("POST /api/robots", s.testerAPI)
	m.HandleFunc("GET /live", s.livePage)
	m.HandleFunc("GET /api/live", s.liveAPI)
	m.HandleFunc("GET /api/live/events", s.liveEvents)
	m.HandleFunc("GET /skips", s.skipsPage)
	m.HandleFunc("GET /api/skips", s.skipsAPI)
	m.HandleFunc("GET /job", s.jobPage)
	m.HandleFunc("GET /api/job", s.jobAPI)
	m.HandleFunc("GET /fleet", s.fleetPage)
	m.HandleFunc("GET /api/fleet", s.fleetAPI)
	s.mux = m
}

// ServeHTTP serves the pages, with headers that keep a browser from
// loading anything from elsewhere.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

func cacheable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=300")
		h.ServeHTTP(w, r)
	})
}

// page is what every page template gets.
type page struct {
	Title string
	Nav   []navItem
	Data  any
}

type navItem struct {
	Href, Label string
	Current     bool
}

func (s *Server) nav(current string) []navItem {
	items := []navItem{{Href: "/robots", Label: "robots.txt tester"}}
	if s.monitor != nil {
		items = append(items, navItem{Href: "/live", Label: "Live crawl"}, navItem{Href: "/skips", Label: "Skip log"})
	}
	if s.stateDir != "" {
		items = append(items, navItem{Href: "/job", Label: "Job"})
		if s.monitor == nil {
			items = append(items, navItem{Href: "/skips", Label: "Skip log"})
		}
	}
	if s.fleet != nil {
		items = append(items, navItem{Href: "/fleet", Label: "Fleet"})
	}
	for i := range items {
		items[i].Current = items[i].Href == current
	}
	return items
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.monitor != nil:
		http.Redirect(w, r, "/live", http.StatusFound)
	case s.stateDir != "":
		http.Redirect(w, r, "/job", http.StatusFound)
	case s.fleet != nil:
		http.Redirect(w, r, "/fleet", http.StatusFound)
	default:
		http.Redirect(w, r, "/robots", http.StatusFound)
	}
}

// render writes a page with status code.
func (s *Server) render(w http.ResponseWriter, code int, name, title, current string, data any) {
	t := s.tmpl[name]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if err := t.ExecuteTemplate(w, "layout", page{Title: title, Nav: s.nav(current), Data: data}); err != nil {
		s.logger.Warn("ui: render", "page", name, "error", err)
	}
}

// notServed answers a page this Server was not given the data for.
func (s *Server) notServed(w http.ResponseWriter, what, how string) {
	s.render(w, http.StatusNotFound, "message", what, "", message{Heading: what + " is not served here", Text: how})
}

type message struct{ Heading, Text string }

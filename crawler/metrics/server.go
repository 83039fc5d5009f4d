package metrics

import (
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/heedcrawl/heed/stats"
)

// Handler returns an http.Handler serving the collector's metrics, Go's
// runtime and the process's metrics, and heed_build_info, in the
// Prometheus exposition formats.
func Handler(c *Collector) http.Handler { return handlerFor(c) }

// handlerFor serves cs with Go's, the process's and the build's metrics.
func handlerFor(cs ...prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(),
	)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// buildInfo is heed_build_info: always 1, labelled with the version of
// the heed module in the binary ("(devel)" when built in its own
// repository), the VCS revision the binary was built from ("" when Go
// did not record one) and the Go version.
func buildInfo() prometheus.Collector {
	version, revision := BuildVersion()
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "build_info",
		Help:        "heed's build: version, VCS revision and Go version as labels; always 1.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()},
	}, func() float64 { return 1 })
}

// BuildVersion returns the version of the heed module in the running
// binary and the VCS revision it was built from, as Go recorded them
// (debug.ReadBuildInfo); "(devel)" and "" when unknown.
func BuildVersion() (version, revision string) {
	version = "(devel)"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version, ""
	}
	const module = "github.com/heedcrawl/heed"
	if bi.Main.Path == module && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	for _, dep := range bi.Deps {
		if dep.Path == module && dep.Version != "" {
			version = dep.Version
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	return version, revision
}

// Server serves /metrics for one crawl, and at / a page linking to it.
type Server struct {
	srv *http.Server
	ln  net.Listener
	err chan error
}

// Listen starts serving /metrics for stats on addr ("127.0.0.1:9090",
// ":0" for any free port); options configure the collector, and the
// crawler's product token, when given in labels, labels every metric.
// The root path answers a small page linking to /metrics, so that a
// person opening the address finds them; any other path is 404.
func Listen(addr string, st *stats.Collector, labels prometheus.Labels, opts ...Option) (*Server, error) {
	return serve(addr, labels, NewCollector(st, labels, opts...))
}

// serve serves cs (and Go's, the process's and the build's metrics) at
// /metrics on addr, and the index page at /.
func serve(addr string, labels prometheus.Labels, cs ...prometheus.Collector) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	title := "heed metrics"
	if a := labels["agent"]; a != "" {
		title += ": " + a
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", handlerFor(cs...))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%[1]s</title></head><body><h1>%[1]s</h1><p><a href=\"/metrics\">/metrics</a>: the crawl's Prometheus metrics.</p></body></html>\n",
			html.EscapeString(title))
	})
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, err: make(chan error, 1)}
	go func() { s.err <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error {
	err := s.srv.Close()
	if serr := <-s.err; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

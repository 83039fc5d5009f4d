package testweb

import (
	"html"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// route answers one request URI of a scenario host and returns the Served
// label of the hit.
type route func(s *Site, w http.ResponseWriter, r *http.Request) string

// static answers with a fixed status, content type and body.
func static(status int, ctype string, body []byte, label string) route {
	return func(_ *Site, w http.ResponseWriter, _ *http.Request) string {
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		w.Write(body)
		return label
	}
}

// redirect answers with a redirect to loc, written as given.
func redirect(code int, loc, label string) route {
	return func(_ *Site, w http.ResponseWriter, _ *http.Request) string {
		w.Header().Set("Location", loc)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(code)
		w.Write([]byte(http.StatusText(code) + "\n"))
		return label
	}
}

// withHeader sets a response header before next answers.
func withHeader(key, value string, next route) route {
	return func(s *Site, w http.ResponseWriter, r *http.Request) string {
		w.Header().Set(key, value)
		return next(s, w, r)
	}
}

// sequence serves the n-th request with steps[n], and every later request
// with the last step: a per-Site history.
func sequence(steps ...route) route {
	var n atomic.Int64
	return func(s *Site, w http.ResponseWriter, r *http.Request) string {
		i := n.Add(1) - 1
		if i >= int64(len(steps)) {
			i = int64(len(steps)) - 1
		}
		return steps[i](s, w, r)
	}
}

// delayed sleeps the site's slow delay before next answers, and gives up
// when the client or the site goes away.
func delayed(next route) route {
	return func(s *Site, w http.ResponseWriter, r *http.Request) string {
		if !s.sleep(r.Context(), s.cfg.slowDelay) {
			return "abandoned"
		}
		return next(s, w, r)
	}
}

const (
	ctypeHTML = "text/html; charset=utf-8"
	ctypeText = "text/plain; charset=utf-8"
	ctypeXML  = "application/xml; charset=utf-8"
	ctypeGzip = "application/gzip"
)

// page is one declared HTML page of a scenario host.
type page struct {
	// uri is the request URI the page is served at: path and query,
	// exactly as linked.
	uri   string
	title string
	text  string
	// links are hrefs exactly as written in the HTML (before escaping).
	links []string
	// status is the page's redirect code, 0 for an ordinary page.
	status   int
	location string
	// serve, when set, answers instead of the rendered page (pages whose
	// answer depends on history); final is then the status the crawler
	// ends with.
	serve route
	final int
}

// pageView is what the oracle knows about a request URI.
type pageView struct {
	status   int
	location string
	links    []string
}

func (p *page) view() pageView {
	switch {
	case p.status != 0:
		return pageView{status: p.status, location: p.location}
	case p.final != 0:
		return pageView{status: p.final, links: p.links}
	}
	return pageView{status: http.StatusOK, links: p.links}
}

// render writes the page's HTML.
func (p *page) render() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>")
	b.WriteString(html.EscapeString(p.title))
	b.WriteString("</title></head>\n<body>\n<h1>")
	b.WriteString(html.EscapeString(p.title))
	b.WriteString("</h1>\n<p>")
	b.WriteString(html.EscapeString(p.text))
	b.WriteString("</p>\n")
	if len(p.links) > 0 {
		b.WriteString("<ul>\n")
		for _, l := range p.links {
			b.WriteString(`<li><a href="`)
			b.WriteString(html.EscapeString(l))
			b.WriteString(`">`)
			b.WriteString(html.EscapeString(l))
			b.WriteString("</a></li>\n")
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

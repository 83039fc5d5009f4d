package sitemap

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// scopeChecker decides whether a loc lies within its sitemap's scope.
type scopeChecker struct {
	base *url.URL // nil: no base, nothing checked
	mode Scope
	auth string // canonical scheme://host[:port] of the base
	dir  string // the base's directory, ending in "/"
}

func newScopeChecker(base *url.URL, mode Scope) scopeChecker {
	dir := base.EscapedPath()
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[:i+1]
	} else {
		dir = "/"
	}
	return scopeChecker{base: base, mode: mode, auth: authority(base), dir: dir}
}

// authority returns scheme://host[:port], lower-cased, without a default
// port, so that http://Example.com:80 and http://example.com compare equal.
func authority(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port
	}
	return scheme + "://" + host
}

// inScope returns "" when u is within scope, else why not.
func (s *scopeChecker) inScope(u *url.URL) string {
	if s.base == nil || s.mode == ScopeNone {
		return ""
	}
	if a := authority(u); a != s.auth {
		return fmt.Sprintf("not on %s, the sitemap's authority", s.auth)
	}
	if s.mode == ScopeDirectory {
		path := u.EscapedPath()
		if path == "" {
			path = "/"
		}
		if !strings.HasPrefix(path, s.dir) {
			return fmt.Sprintf("not under %s%s, the sitemap's directory", s.auth, s.dir)
		}
	}
	return ""
}

// checkLoc validates e.Loc, resolving it when relative, and sets e.Problem
// for a loc that must not be fetched. relative allows any relative
// reference (XML); otherwise only an absolute path is resolved (text
// lines, where a junk line must not become a URL). overflow says the loc
// was cut while being read.
func (p *parser) checkLoc(e *Entry, relative, overflow bool) {
	reject := func(kind ProblemKind, detail string) {
		e.Problem, e.Detail = kind, detail
		p.rep.addProblem(kind, e.Line, e.Loc, detail)
	}
	if p.tooLong(e) || overflow {
		reject(ProblemLocTooLong, fmt.Sprintf("longer than %d characters", p.cfg.maxLoc))
		return
	}
	if !utf8.ValidString(e.Loc) {
		e.Loc = strings.ToValidUTF8(e.Loc, "\uFFFD")
		reject(ProblemInvalidURL, "not UTF-8")
		return
	}
	if i := strings.IndexAny(e.Loc, " \t\r\n\f\v"); i >= 0 {
		reject(ProblemInvalidURL, "contains white space")
		return
	}
	u, err := url.Parse(e.Loc)
	if err != nil {
		reject(ProblemInvalidURL, err.Error())
		return
	}
	if !u.IsAbs() {
		if p.scope.base == nil {
			reject(ProblemInvalidURL, "relative URL and no sitemap URL to resolve it against")
			return
		}
		if !relative && !strings.HasPrefix(e.Loc, "/") {
			reject(ProblemInvalidURL, "not a URL")
			return
		}
		u = p.scope.base.ResolveReference(u)
		p.rep.addProblem(ProblemRelativeURL, e.Line, e.Loc, "resolved to "+u.String())
		e.Loc = u.String()
		if p.tooLong(e) {
			reject(ProblemLocTooLong, fmt.Sprintf("longer than %d characters once resolved", p.cfg.maxLoc))
			return
		}
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		reject(ProblemInvalidURL, "not an http or https URL")
		return
	}
	if u.Host == "" {
		reject(ProblemInvalidURL, "no host")
		return
	}
	if why := p.scope.inScope(u); why != "" {
		reject(ProblemOutOfScope, why)
	}
}

// tooLong reports whether e.Loc has more than maxLoc characters; it cuts
// e.Loc to maxLoc characters when it has, or when it is to be cut anyway.
func (p *parser) tooLong(e *Entry) bool {
	if len(e.Loc) <= p.cfg.maxLoc {
		return false
	}
	n := 0
	for i := range e.Loc {
		if n == p.cfg.maxLoc {
			e.Loc = e.Loc[:i]
			return true
		}
		n++
	}
	return false
}

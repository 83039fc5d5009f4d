package download

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/heedcrawl/heed/frontier"
)

// Cookies are cookies preset for the authority of URL (a session cookie
// copied from a browser, a consent cookie), as if that authority had set
// them: like every cookie in the jar they are sent to that authority only.
type Cookies struct {
	URL     string
	Cookies []*http.Cookie
}

// Check reports what in c a Downloader cannot take: a preset cookie's URL
// that is not an absolute http(s) URL, since its cookies would belong to
// no authority.
func (c Config) Check() error {
	for _, p := range c.Cookies {
		if _, err := p.url(); err != nil {
			return err
		}
	}
	return nil
}

// url parses the preset's URL, refusing one that names no authority.
func (p Cookies) url() (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(p.URL))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http(s) URL", p.URL)
	}
	if _, err := frontier.Authority(u.String()); err != nil {
		return nil, err
	}
	return u, nil
}

// applyCookies sets the jar as the config says.
func (d *Downloader) applyCookies(cfg Config) {
	if cfg.NoCookies {
		d.c.DisableCookies()
		return
	}
	for _, p := range cfg.Cookies {
		if u, err := p.url(); err == nil {
			d.jar.SetCookies(u, p.Cookies)
		}
	}
}

// authorityJar keeps cookies per authority (scheme, host and port), which
// is stricter than a browser's jar: RFC 6265 shares a host's cookies across
// ports and schemes, and a Domain attribute shares them across subdomains.
// heed never lets a cookie one authority set reach another, so following a
// link or a redirect to another authority carries no credentials.
//
// An authority gets a jar when it first sets a cookie; asking for the
// cookies of one that never did creates nothing, and while no authority
// has set any (most crawls) it costs no more than an atomic load.
//
// An authority keeps at most MaxCookiesPerAuthority cookie names (RFC
// 6265 §6.1 asks a jar for at least 50 per domain): a site that sets new
// cookies on every page would otherwise grow the jar, and every request's
// Cookie header, without bound, until the site refuses the headers.
// Cookies of names it already has are still updated.
type authorityJar struct {
	mu   sync.Mutex
	jars map[string]*siteJar
	// held is how many authorities have a jar.
	held atomic.Int32
}

// MaxCookiesPerAuthority is how many cookie names one authority may keep
// in heed's jar; the cookies of further names it sets are dropped.
const MaxCookiesPerAuthority = 50

// siteJar is one authority's jar and the cookie names it holds.
type siteJar struct {
	jar   *cookiejar.Jar
	names map[string]struct{}
}

func newAuthorityJar() *authorityJar { return &authorityJar{jars: make(map[string]*siteJar)} }

// jar returns u's authority's jar, creating it if create is set; nil if
// it has none.
func (j *authorityJar) jar(u *url.URL, create bool) *siteJar {
	auth, err := frontier.Authority(u.String())
	if err != nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	sj := j.jars[auth]
	if sj == nil && create {
		jar, _ := cookiejar.New(nil)
		sj = &siteJar{jar: jar, names: map[string]struct{}{}}
		j.jars[auth] = sj
		j.held.Add(1)
	}
	return sj
}

// SetCookies stores the cookies a response of u set, for u's authority
// only, within the authority's cap of cookie names.
func (j *authorityJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	sj := j.jar(u, true)
	if sj == nil {
		return
	}
	j.mu.Lock()
	kept := cookies[:0:0]
	for _, c := range cookies {
		if _, ok := sj.names[c.Name]; !ok {
			if len(sj.names) >= MaxCookiesPerAuthority {
				continue
			}
			sj.names[c.Name] = struct{}{}
		}
		kept = append(kept, c)
	}
	j.mu.Unlock()
	sj.jar.SetCookies(u, kept)
}

// Cookies returns the cookies to send to u: only those its own authority set.
func (j *authorityJar) Cookies(u *url.URL) []*http.Cookie {
	if j.held.Load() == 0 {
		return nil
	}
	if sj := j.jar(u, false); sj != nil {
		return sj.jar.Cookies(u)
	}
	return nil
}

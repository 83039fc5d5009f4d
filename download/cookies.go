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
type authorityJar struct {
	mu   sync.Mutex
	jars map[string]*cookiejar.Jar
	// held is how many authorities have a jar.
	held atomic.Int32
}

func newAuthorityJar() *authorityJar { return &authorityJar{jars: make(map[string]*cookiejar.Jar)} }

// jar returns u's authority's jar, creating it if create is set; nil if
// it has none.
func (j *authorityJar) jar(u *url.URL, create bool) *cookiejar.Jar {
	auth, err := frontier.Authority(u.String())
	if err != nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	jar := j.jars[auth]
	if jar == nil && create {
		jar, _ = cookiejar.New(nil)
		j.jars[auth] = jar
		j.held.Add(1)
	}
	return jar
}

// SetCookies stores the cookies a response of u set, for u's authority only.
func (j *authorityJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	if jar := j.jar(u, true); jar != nil {
		jar.SetCookies(u, cookies)
	}
}

// Cookies returns the cookies to send to u: only those its own authority set.
func (j *authorityJar) Cookies(u *url.URL) []*http.Cookie {
	if j.held.Load() == 0 {
		return nil
	}
	if jar := j.jar(u, false); jar != nil {
		return jar.Cookies(u)
	}
	return nil
}

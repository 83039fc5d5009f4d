package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/skiplog"
)

// RedirectHop decides one hop of a redirect chain: req was answered with
// status, a redirect to location. It returns the request for the hop, a
// new request that goes through the whole chain again (scope, the
// robots.txt of the target's own authority, pacing) and carries req's
// kind, depth, priority, callback and meta, the chain so far in Redirects
// and req's URL as its Referrer; or the skip-log record that ends the
// chain: a target that is not an http(s) URL (invalid-url), one already in
// the chain (redirect-loop), or a hop past maxRedirects (redirect-limit).
//
// A 307 or 308 asks for the same request again: the hop keeps req's
// method, body and headers. Any other redirect of a POST is a GET without
// a body, as browsers do (RFC 9110 §15.4); it keeps req's headers but
// those that describe the body.
//
// It is the one rule for redirects of pages and sitemaps, in the crawl
// and in the inventory. (robots.txt redirects follow RFC 9309's own rule,
// in FetchRobots.)
func RedirectHop(req *frontier.Request, status int, location string, maxRedirects int) (*frontier.Request, *skiplog.Record) {
	chain := append(append([]string(nil), req.Redirects...), req.URL)
	rec := &skiplog.Record{URL: location, Reason: skiplog.InvalidURL, Depth: req.Depth, Referrer: req.URL}
	target, err := ResolveLocation(req.URL, location)
	if err == nil {
		rec.URL = target
		target, err = frontier.Canonicalize(target)
	}
	if err != nil {
		rec.Err = err.Error()
		return nil, rec
	}
	rec.URL = target
	for _, u := range chain {
		if u == target {
			rec.Reason, rec.Detail = skiplog.RedirectLoop, "redirect chain "+strings.Join(append(chain, target), " -> ")
			return nil, rec
		}
	}
	if len(chain) > maxRedirects {
		rec.Reason, rec.Detail = skiplog.RedirectLimit, fmt.Sprintf("more than %d redirects from %s", maxRedirects, chain[0])
		return nil, rec
	}
	next := &frontier.Request{
		URL: target, Kind: req.Kind, Depth: req.Depth, Priority: req.Priority,
		Callback: req.Callback, Meta: req.Meta, Referrer: req.URL, Redirects: chain,
	}
	if status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect {
		next.Method, next.Body, next.Header = req.Method, req.Body, req.Header
	} else if len(req.Header) > 0 {
		next.Header = req.Header.Clone()
		for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding"} {
			next.Header.Del(k)
		}
	}
	return next, nil
}

// ResolveLocation resolves a redirect's Location header against the URL
// that was answered, dropping the fragment. A missing or malformed
// Location, or one that is not http(s), is an error.
func ResolveLocation(from, loc string) (string, error) {
	loc = strings.TrimSpace(loc)
	if loc == "" {
		return "", errors.New("redirect without a Location header")
	}
	base, err := url.Parse(from)
	if err != nil {
		return "", err
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("bad Location %q: %w", loc, err)
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("redirect to a non-http URL %q", u.String())
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

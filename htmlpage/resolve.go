package htmlpage

import (
	"net/url"
	"strings"
)

// Most links a crawl meets are an absolute path ("/p/12?x=1") or an
// absolute http(s) URL written plainly. For those, resolving against the
// page's URL is string work: ResolvePlain does it without net/url's
// parse, resolution and re-serialisation (three allocations and most of
// the CPU a link costs), and gives up on anything else (dot segments,
// percent-encoding, "//", other schemes, characters net/url would escape
// or reject, a base with userinfo), which the caller (crawler's
// Response.AbsoluteURL) then resolves with net/url. FuzzResolvePlain
// checks that both agree.

// simpleBase reports whether links can be resolved against base by
// ResolvePlain: an http(s) URL with a simple host and no userinfo.
func simpleBase(base *url.URL) bool {
	return base != nil && base.User == nil && base.Opaque == "" &&
		(base.Scheme == "http" || base.Scheme == "https") && simpleHost(base.Host)
}

// ResolvePlain resolves link (trimmed, not empty, not a lone fragment)
// against base as base.Parse would, dropping the fragment; ok is false
// when the link or the base needs net/url. It allocates at most the
// resolved string.
func ResolvePlain(base *url.URL, link string) (string, bool) {
	rest := ""
	switch {
	case strings.HasPrefix(link, "http://"):
		rest = link[len("http://"):]
	case strings.HasPrefix(link, "https://"):
		rest = link[len("https://"):]
	case len(link) > 1 && link[0] == '/' && link[1] != '/':
		ref, ok := simpleRef(link)
		if !ok || !simpleBase(base) {
			return "", false
		}
		return base.Scheme + "://" + base.Host + ref, true
	default:
		return "", false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if !simpleHost(rest[:end]) || (end < len(rest) && rest[end] != '/') {
		return "", false
	}
	ref, ok := simpleRef(rest[end:])
	if !ok {
		return "", false
	}
	if len(ref) == len(rest)-end {
		return link, true // no fragment: the link as written
	}
	return link[:len(link)-len(rest)+end] + ref, true
}

// simpleHost reports whether host is a lower-case name or IPv4 address
// with an optional port: what net/url keeps as written.
func simpleHost(host string) bool {
	if host == "" {
		return false
	}
	colon := false
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c >= 'a' && c <= 'z', c == '-', c == '.':
			if colon {
				return false
			}
		case c >= '0' && c <= '9':
		case c == ':':
			if colon || i == 0 || i == len(host)-1 {
				return false
			}
			colon = true
		default:
			return false
		}
	}
	return true
}

// simpleRef returns an absolute path (or "") with an optional query and
// fragment without the fragment, when every part is made of characters
// net/url keeps as written and the path has no dot segment and no empty
// segment.
func simpleRef(ref string) (string, bool) {
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		if !simpleChars(ref[i+1:], true) {
			return "", false
		}
		ref = ref[:i]
	}
	path, query, hasQuery := strings.Cut(ref, "?")
	if !simpleChars(path, false) || strings.Contains(path, "/.") || strings.Contains(path, "//") {
		return "", false
	}
	if hasQuery && (query == "" || !simpleChars(query, true)) {
		return "", false
	}
	return ref, true
}

// simpleChars reports whether s has only unreserved characters, "/" and
// (in a query or fragment) the delimiters that net/url leaves alone.
func simpleChars(s string, query bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '/':
		case query && (c == '=' || c == '&' || c == '+' || c == ',' || c == ':' || c == '@'):
		default:
			return false
		}
	}
	return true
}

package htmlpage

import (
	"fmt"
	"net/url"
	"strings"
)

// Most links a crawl meets are an absolute path ("/p/12?x=1") or an
// absolute http(s) URL written plainly. For those, resolving against the
// page's URL is string work: ResolvePlain does it without net/url's
// parse, resolution and re-serialisation (three allocations and most of
// the CPU a link costs), and gives up on anything else (dot segments,
// percent-encoding, "//", other schemes, characters net/url would escape
// or reject, a base with userinfo), which Resolve then resolves with
// net/url. FuzzResolvePlain checks that both agree.

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

// Resolve resolves a link found on a page against base, the page's URL or
// its base href (see BaseOf), as crawler's Response.AbsoluteURL does: ""
// for a link that is not crawlable (empty, a lone fragment, javascript:,
// mailto:, tel:, data: ...), the absolute http(s) URL without its fragment
// otherwise. A link net/url refuses is repaired as a browser reads it
// (tabs and newlines dropped, other controls, spaces and stray "%"
// encoded) and tried again; one that still does not parse is returned
// trimmed, as written, so that the crawl records it as invalid instead of
// losing it. A nil base resolves absolute links only.
func Resolve(base *url.URL, link string) string {
	link = strings.TrimSpace(link)
	if link == "" || strings.HasPrefix(link, "#") {
		return ""
	}
	if base == nil {
		base = &url.URL{} // only absolute links resolve
	}
	if abs, ok := ResolvePlain(base, link); ok {
		return abs
	}
	u, err := base.Parse(link)
	if err != nil {
		u, err = base.Parse(repairReference(link))
	}
	if err != nil {
		return link
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	u.Fragment = ""
	u.RawFragment = ""
	return u.String()
}

// repairReference makes a link Go's URL parser refuses into the one a
// browser reads: ASCII tabs and newlines are removed (as the WHATWG URL
// parser does), other control characters and spaces are percent-encoded,
// and a "%" not followed by two hex digits becomes "%25", as
// frontier.Canonicalize does for absolute URLs.
func repairReference(link string) string {
	var b strings.Builder
	b.Grow(len(link) + 8)
	for i := 0; i < len(link); i++ {
		c := link[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
		case c < 0x20 || c == 0x7f || c == ' ':
			fmt.Fprintf(&b, "%%%02X", c)
		case c == '%' && !(i+2 < len(link) && isHex(link[i+1]) && isHex(link[i+2])):
			b.WriteString("%25")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// BaseOf returns what the links of the page at page resolve against: its
// base element's href (has reports there is one) resolved against page,
// or page itself when there is none or it does not parse.
func BaseOf(page *url.URL, href string, has bool) *url.URL {
	if has && page != nil {
		if b, err := page.Parse(strings.TrimSpace(href)); err == nil {
			return b
		}
	}
	return page
}

// LinkRel returns rel, the rel attribute of an element whose href
// attribute is href, when link is that element's own link (a callback
// following e.Attr("href")); "" when the link followed is another one.
func LinkRel(href, rel, link string) string {
	if href == "" || strings.TrimSpace(href) != strings.TrimSpace(link) {
		return ""
	}
	return rel
}

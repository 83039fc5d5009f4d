package frontier

import "strings"

// Most URLs heed handles are canonical already: every request the
// frontier hands out, and most links a site writes. For those,
// Canonicalize and Authority need not parse and rebuild: one pass over
// the bytes tells that the URL is its own canonical form, and the
// authority is its prefix. The checks below are conservative (anything
// unusual, such as an upper-case letter, a percent escape or a dot
// segment, goes the long way) and FuzzCanonicalFastPath checks that both
// ways agree.

// canonicalAuthorityEnd returns the length of raw's authority
// ("https://host" or "http://host:port") when raw starts with one in
// canonical form followed by '/', '?', '#' or nothing: a lower-case
// http or https scheme, a host of lower-case letters, digits, '-' and
// '.' with no empty label and at most maxHostLength bytes, and a port,
// if any, from 1 to 65535 without a leading zero and not the scheme's
// default. It returns -1 for any other URL, and for one longer than
// MaxURLLength (which Authority and Canonicalize refuse).
func canonicalAuthorityEnd(raw string) int {
	if len(raw) > MaxURLLength {
		return -1
	}
	var i int
	var defaultPort string
	switch {
	case strings.HasPrefix(raw, "http://"):
		i, defaultPort = len("http://"), "80"
	case strings.HasPrefix(raw, "https://"):
		i, defaultPort = len("https://"), "443"
	default:
		return -1
	}
	start, colon := i, -1
scan:
	for ; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.':
		case c == ':' && colon < 0:
			colon = i
		case c == '/', c == '?', c == '#':
			break scan
		default:
			return -1
		}
	}
	host, port := raw[start:i], ""
	if colon >= 0 {
		host, port = raw[start:colon], raw[colon+1:i]
	}
	if host == "" || len(host) > maxHostLength || host[0] == '.' || strings.Contains(host, "..") {
		return -1
	}
	if colon >= 0 {
		if port == "" || port[0] == '0' || len(port) > 5 || port == defaultPort {
			return -1
		}
		n := 0
		for j := 0; j < len(port); j++ {
			c := port[j]
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		if n > 65535 {
			return -1
		}
	}
	return i
}

// isCanonical reports whether raw is, by the conservative checks above,
// its own canonical form: a canonical authority, a path that starts with
// '/' and holds only characters a path keeps unescaped and no dot
// segment, and an optional non-empty query of characters a query keeps;
// no '%', no fragment.
func isCanonical(raw string) bool {
	n := canonicalAuthorityEnd(raw)
	if n < 0 || n == len(raw) || raw[n] != '/' {
		return false
	}
	rest := raw[n:]
	i := 0
	for ; i < len(rest); i++ {
		c := rest[i]
		if c == '?' {
			break
		}
		if c == '%' || charClass[c]&classPath == 0 {
			return false
		}
		if c == '.' && rest[i-1] == '/' {
			// A "." or ".." segment.
			j := i + 1
			if j < len(rest) && rest[j] == '.' {
				j++
			}
			if j == len(rest) || rest[j] == '/' || rest[j] == '?' {
				return false
			}
		}
	}
	if i == len(rest) {
		return true
	}
	query := rest[i+1:]
	if query == "" {
		return false // an empty query is dropped
	}
	for j := 0; j < len(query); j++ {
		if c := query[j]; c == '%' || charClass[c]&classQuery == 0 {
			return false
		}
	}
	return true
}

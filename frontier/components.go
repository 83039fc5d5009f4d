package frontier

import (
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// maxHostLength bounds a host name in canonical form: a DNS name is at most
// 253 characters plus an optional root dot, and a longer one cannot resolve.
const maxHostLength = 254

// idnaProfile converts international host names the way browsers look them
// up (UTS #46 non-transitional mapping), without the STD3 and hyphen checks
// that would refuse host names in real use ("my_host", "r3---sn-x").
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// Character classes of RFC 3986 §2 and §3, as bits in charClass.
const (
	classUnreserved = 1 << iota // ALPHA DIGIT - . _ ~
	classHost                   // allowed in a reg-name host: unreserved, sub-delims
	classPath                   // allowed unescaped in a path: pchar and "/"
	classQuery                  // allowed unescaped in a query: pchar, "/" and "?"
)

var charClass = func() (t [256]uint8) {
	const subDelims = "!$&'()*+,;="
	for c := 0; c < 256; c++ {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", byte(c)) >= 0 {
			t[c] |= classUnreserved | classHost | classPath | classQuery
		}
	}
	for _, c := range []byte(subDelims) {
		t[c] |= classHost | classPath | classQuery
	}
	for _, c := range []byte(":@/") {
		t[c] |= classPath | classQuery
	}
	t['?'] |= classQuery
	return t
}()

const upperHex = "0123456789ABCDEF"

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// appendCanonical appends the canonical form of raw to b (see Canonicalize).
func appendCanonical(b []byte, raw string) ([]byte, error) {
	p, err := parseHead(raw)
	if err != nil {
		return b, err
	}
	b = p.appendAuthority(b)

	path, query := p.rest, ""
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if path == "" {
		b = append(b, '/')
	} else {
		start := len(b)
		b = appendEscaped(b, path, classPath)
		b = removeDotSegments(b, start)
	}
	if query != "" {
		b = append(b, '?')
		b = appendEscaped(b, query, classQuery)
	}
	if len(b) > MaxURLLength {
		return b, urlError(raw, "longer than "+strconv.Itoa(MaxURLLength)+" bytes in canonical form", nil)
	}
	return b, nil
}

// appendEscaped appends s with its percent-encoding normalised: bytes of
// class pass, escapes of unreserved characters are decoded, other escapes
// are upper-cased, and everything else (including a stray "%") is escaped.
func appendEscaped(b []byte, s string, class uint8) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				v := hi<<4 | lo
				if charClass[v]&classUnreserved != 0 {
					b = append(b, v)
				} else {
					b = append(b, '%', upperHex[hi], upperHex[lo])
				}
				i += 2
				continue
			}
		}
		if charClass[c]&class != 0 {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upperHex[c>>4], upperHex[c&15])
	}
	return b
}

// removeDotSegments removes the "." and ".." segments of the path in
// b[start:], which starts with "/", in place (RFC 3986 §5.2.4; for a path
// that starts with "/" the algorithm reduces to a stack of segments).
func removeDotSegments(b []byte, start int) []byte {
	p := b[start:]
	w := 0 // p[:w] is the output so far
	for r := 0; r < len(p); {
		end := r + 1
		for end < len(p) && p[end] != '/' {
			end++
		}
		seg := p[r+1 : end]
		last := end == len(p)
		switch {
		case len(seg) == 1 && seg[0] == '.':
			if last {
				p[w] = '/'
				w++
			}
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			for w > 0 {
				w--
				if p[w] == '/' {
					break
				}
			}
			if last {
				p[w] = '/'
				w++
			}
		default:
			w += copy(p[w:], p[r:end])
		}
		r = end
	}
	return b[:start+w]
}

// canonicalHost returns the canonical form of a host (see Canonicalize),
// or the reason it is invalid.
func canonicalHost(h string) (string, string) {
	if h == "" {
		return "", "empty host"
	}
	if h[0] == '[' {
		inner := h[1 : len(h)-1]
		if strings.IndexByte(inner, '%') >= 0 {
			return "", "IPv6 zone in host"
		}
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() {
			return "", "invalid IPv6 address in host"
		}
		if s := "[" + a.String() + "]"; s != h {
			return s, ""
		}
		return h, ""
	}

	s := h
	if strings.IndexByte(s, '%') >= 0 {
		var ok bool
		if s, ok = unescapeHost(s); !ok {
			return "", "invalid percent-encoding in host"
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			a, err := idnaProfile.ToASCII(s)
			if err != nil {
				return "", "invalid international host name"
			}
			s = a
			break
		}
	}
	if len(s) > maxHostLength {
		return "", "host longer than " + strconv.Itoa(maxHostLength) + " bytes"
	}
	if s == "" || s[0] == '.' || strings.Contains(s, "..") {
		return "", "empty label in host"
	}
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if charClass[c]&classHost == 0 {
			return "", "invalid character " + strconv.QuoteRune(rune(c)) + " in host"
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if upper {
		s = strings.ToLower(s)
	}
	return s, ""
}

// unescapeHost decodes every percent escape of s.
func unescapeHost(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), true
}

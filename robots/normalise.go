package robots

// RFC 9309 §2.2.2 compares a rule's path with the URL's path after the
// same normalisation on both sides: octets outside US-ASCII are
// percent-encoded (UTF-8), percent-encoded unreserved characters are
// decoded, and every other percent-encoding is kept, with its hex digits in
// one case. heed also percent-encodes ASCII control characters and space,
// which can appear in a rule's value but never in a request target, so that
// "Disallow: /a b" means the path a server sees as /a%20b.

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// mustEncode reports whether octet c is percent-encoded by normalisation.
func mustEncode(c byte) bool {
	return c <= ' ' || c >= 0x7F
}

// isCanonical reports whether normalising s would leave it unchanged, so
// that the common path (no "%", nothing outside printable ASCII) needs no
// copy.
func isCanonical(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if mustEncode(c) {
			return false
		}
		if c != '%' || i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			continue
		}
		a, b := s[i+1], s[i+2]
		if isUnreserved(unhex(a)<<4|unhex(b)) || 'a' <= a || 'a' <= b {
			return false
		}
		i += 2
	}
	return true
}

// appendNormalised appends the normalised form of s to dst. A "%" that
// does not start a valid escape is kept as it is: it can only match itself.
func appendNormalised(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case mustEncode(c):
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
			}
			i += 2
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// normalise returns the normalised form of s, s itself when already
// normalised.
func normalise(s string) string {
	if isCanonical(s) {
		return s
	}
	return string(appendNormalised(make([]byte, 0, len(s)+8), s))
}

// normalisePattern turns an Allow/Disallow value into the pattern heed
// matches: normalised, and with "/" prepended when the value starts with
// neither "/" nor "*" (as Google does; Lint reports such values). "*" and
// "$" are not touched by normalisation: they are not "%" and are printable.
func normalisePattern(v string) string {
	if v != "" && v[0] != '/' && v[0] != '*' {
		v = "/" + v
	}
	return normalise(v)
}

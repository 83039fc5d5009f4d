package robots

// RFC 9309 §2.2.2 compares a rule's path with the URL's path after the
// same normalisation on both sides: octets outside US-ASCII are
// percent-encoded (UTF-8), percent-encoded unreserved characters are
// decoded, and every other percent-encoding is kept, with its hex digits in
// one case.
//
// heed also percent-encodes, on both sides, the printable ASCII characters
// a URL can only carry encoded (space, `"`, `<`, `>`, `\`, `^`, "`", `{`,
// `|`, `}`) and the control characters: they can appear raw in a rule's
// value but a request target carries them encoded, so "Disallow: /a<b"
// means the path a server sees as /a%3Cb. Comparing the encoded forms is
// an equivalence, because a URL that carried them raw would mean the same.
//
// RFC 9309 §2.2.3 makes "*" and a final "$" special in a pattern, and a
// pattern that must match a literal "*" or "$" writes it %2A or %24. So in
// a URL's path (where they are never special) "*" and "$" are compared in
// their encoded forms %2A and %24, and so is a "$" in a pattern that is not
// its last octet (which Google and heed read as a literal): then a rule's
// %24 matches the URL's "$" or %24, and a rule's "*" stays a wildcard.

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

// mustEncode reports whether octet c is percent-encoded by normalisation
// on both sides: controls, space, non-ASCII octets and the printable
// characters RFC 3986 never allows raw in a URL.
func mustEncode(c byte) bool {
	if c <= ' ' || c >= 0x7F {
		return true
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return false
}

// pathSpecial reports whether c is an octet that is special in a pattern
// and so is compared encoded when it appears in a URL's path.
func pathSpecial(c byte) bool { return c == '*' || c == '$' }

// isCanonical reports whether normalising the URL path s would leave it
// unchanged, so that the common path (no "%", nothing outside printable
// ASCII, no "*" or "$") needs no copy.
func isCanonical(s string) bool { return isCanon(s, true) }

// isCanonicalPattern is isCanonical for a pattern: "*" and a final "$"
// are left as they are.
func isCanonicalPattern(s string) bool { return isCanon(s, false) }

// isCanon reports whether appendNorm(nil, s, path) would return s.
func isCanon(s string, path bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if mustEncode(c) || path && pathSpecial(c) || !path && c == '$' && i < len(s)-1 {
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

// appendNormalised appends the normalised form of the URL path (or query)
// s to dst: "*" and "$" are encoded too. A "%" that does not start a valid
// escape is kept as it is: it can only match itself.
func appendNormalised(dst []byte, s string) []byte {
	return appendNorm(dst, s, true)
}

func appendNorm(dst []byte, s string, path bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case mustEncode(c) || path && pathSpecial(c) || !path && c == '$' && i < len(s)-1:
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

// normalise returns the normalised form of the URL path s, s itself when
// already normalised.
func normalise(s string) string {
	if isCanonical(s) {
		return s
	}
	return string(appendNormalised(make([]byte, 0, len(s)+8), s))
}

// normalisePattern turns an Allow/Disallow value into the pattern heed
// matches: normalised, its "*" kept as the wildcard and a final "$" as the
// end anchor, any other "$" encoded as the literal it is. A value that
// starts with neither "/" nor "*" is kept as written, as Google's
// open-source matcher keeps it: matching starts at the path's first octet,
// which is always "/", so such a pattern matches no URL (Lint reports it).
func normalisePattern(v string) string {
	if isCanonicalPattern(v) {
		return v
	}
	return string(appendNorm(make([]byte, 0, len(v)+8), v, false))
}

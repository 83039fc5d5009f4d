package frontier

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unique"
)

// MaxURLLength is the longest URL, in bytes, that Canonicalize accepts, both
// as given and in canonical form. It bounds the memory a single discovered
// link can take; most servers refuse request lines longer than 8 KiB anyway.
// A crawl that wants a stricter limit (Scrapy's default is 2083) applies it
// in its admission function.
const MaxURLLength = 8192

// ErrNotAbsolute is wrapped by the [*URLError] for a relative reference
// ("/path", "page.html", "//host/path"): the caller resolves links against
// their base before pushing them.
var ErrNotAbsolute = errors.New("frontier: not an absolute URL")

// ErrUnsupportedScheme is wrapped by the [*URLError] for an absolute URL
// whose scheme is neither http nor https ("mailto:", "javascript:",
// "ftp:"). Crawls usually count these rather than report them.
var ErrUnsupportedScheme = errors.New("frontier: not an http or https URL")

// URLError reports a URL that cannot be canonicalised. URL never holds
// credentials: a userinfo part ("user:password@") is removed from it.
type URLError struct {
	// URL is the input, without userinfo and cut at MaxURLLength bytes.
	URL string
	// Reason says what is wrong, in a few words.
	Reason string
	// Err is ErrNotAbsolute, ErrUnsupportedScheme or nil.
	Err error
}

// Error returns "frontier: invalid URL", the URL (shortened when long) and
// the reason.
func (e *URLError) Error() string {
	u := e.URL
	const show = 120
	if len(u) > show {
		u = u[:show] + "..."
	}
	return "frontier: invalid URL " + strconv.Quote(u) + ": " + e.Reason
}

// Unwrap returns e.Err, so that errors.Is(err, ErrUnsupportedScheme) works.
func (e *URLError) Unwrap() error { return e.Err }

func urlError(raw, reason string, err error) *URLError {
	return &URLError{URL: redact(raw), Reason: reason, Err: err}
}

// redact removes the userinfo of raw, if it has an authority, without
// parsing it: it must work on inputs that failed to parse. The authority
// ends where a browser ends it, a backslash included, so that the URL an
// error names starts with the host the link leads to.
func redact(raw string) string {
	if len(raw) > MaxURLLength {
		raw = raw[:MaxURLLength]
	}
	i := strings.Index(raw, "//")
	if i < 0 {
		return raw
	}
	start := i + 2
	end := start + strings.IndexAny(raw[start:], "/?#\\")
	if end < start {
		end = len(raw)
	}
	at := strings.LastIndexByte(raw[start:end], '@')
	if at < 0 {
		return raw
	}
	return raw[:start] + raw[start+at+1:]
}

// Canonicalize returns the canonical form of an absolute http or https URL,
// the form in which heed queues, deduplicates and reports URLs. Two URLs
// with the same canonical form are the same resource for heed.
//
// The rules follow RFC 3986 §6.2.2 and RFC 9110 §4.2.3, and never change
// what a server receives in a way a server could tell apart:
//
//   - Leading and trailing spaces and control characters are removed, and
//     tabs and line breaks anywhere (as browsers do with links in HTML).
//   - The scheme and host are lower-cased; only http and https are
//     accepted (others: a *URLError wrapping ErrUnsupportedScheme; relative
//     references: ErrNotAbsolute).
//   - The userinfo ("user:password@") is dropped: heed never sends, stores
//     or logs credentials found in links. A backslash in the authority is
//     an error: browsers read it as "/", which would put a different host
//     after it.
//   - The port is dropped when it is the scheme's default (http 80, https
//     443) or empty, and written without leading zeros otherwise; a port
//     that is not a number from 1 to 65535 is an error.
//   - A host with non-ASCII characters (an IDN) is converted to its
//     punycode form with the UTS #46 lookup mapping ("Bücher.example" becomes
//     "xn--bcher-kva.example"), the form DNS and robots.txt authorities use.
//     IPv6 literals are written in their RFC 5952 form. IPv4 addresses are
//     kept as written.
//   - The fragment is dropped: it is never sent to the server.
//   - Percent-encoding is normalised in path and query: escapes are written
//     in upper-case hex; escapes of unreserved characters (letters, digits,
//     "-", ".", "_", "~") are decoded; every other escape is kept, so "%2F"
//     stays "%2F"; spaces, raw non-ASCII bytes and other characters RFC 3986
//     does not allow are encoded (a backslash becomes "%5C"); a "%" not
//     followed by two hex digits becomes "%25".
//   - Dot segments are removed from the path (RFC 3986 §5.2.4), after the
//     escapes are normalised, so "/a/%2e%2E/b" becomes "/b". An empty path
//     becomes "/".
//   - The query is kept in its order, byte for byte apart from the escapes:
//     parameters are never sorted and "+" is never turned into "%20". An
//     empty query ("http://example.com/?") is dropped, as servers treat it
//     like no query.
//
// The input and the result must each be at most MaxURLLength bytes.
// Canonicalize is idempotent: a canonical URL is returned unchanged (and
// without allocating). Errors are of type *URLError; it never panics.
func Canonicalize(rawURL string) (string, error) {
	if isCanonical(rawURL) {
		return rawURL, nil
	}
	return canonicalize(rawURL)
}

// canonicalize is Canonicalize without its fast path.
func canonicalize(rawURL string) (string, error) {
	var buf [256]byte
	b, err := appendCanonical(buf[:0], rawURL)
	if err != nil {
		return "", err
	}
	if string(b) == rawURL {
		return rawURL, nil
	}
	return string(b), nil
}

// CanonicalizeURL is Canonicalize for a parsed URL, such as a link resolved
// with url.URL.ResolveReference.
func CanonicalizeURL(u *url.URL) (string, error) {
	if u == nil {
		return "", &URLError{Reason: "nil URL"}
	}
	return Canonicalize(u.String())
}

// Authority returns the authority of an absolute http or https URL in
// canonical form: scheme, "://", host, and ":port" only when the port is not
// the scheme's default ("https://example.com", "http://example.com:8080",
// "http://[2001:db8::1]"). robots.txt, pacing and caches are all kept per
// authority. For every URL that Canonicalize accepts, Authority returns the
// authority its canonical form starts with; it also accepts URLs whose path
// or query Canonicalize would refuse (too long). Errors are *URLError.
// The result never shares rawURL's memory: an authority is kept for the
// whole crawl as a map key (pacing, robots.txt, budgets, statistics), and
// a slice of the URL would keep the whole URL alive with it. For a URL
// that starts with its canonical authority (a request from the frontier,
// most links) it is the interned copy (package unique): one string per
// authority, made once.
func Authority(rawURL string) (string, error) {
	if n := canonicalAuthorityEnd(rawURL); n >= 0 {
		return unique.Make(rawURL[:n]).Value(), nil
	}
	p, err := parseHead(rawURL)
	if err != nil {
		return "", err
	}
	return string(p.appendAuthority(nil)), nil
}

// head is the scheme and authority of a URL in canonical form, and the rest
// of the URL (path and query, fragment removed) as written.
type head struct {
	scheme string // "http" or "https"
	host   string // canonical host
	port   string // canonical port; empty for the default
	rest   string // path and query as written
}

func (p *head) appendAuthority(b []byte) []byte {
	b = append(b, p.scheme...)
	b = append(b, "://"...)
	b = append(b, p.host...)
	if p.port != "" {
		b = append(b, ':')
		b = append(b, p.port...)
	}
	return b
}

// parseHead splits raw into its parts and canonicalises scheme and authority.
func parseHead(raw string) (head, error) {
	if len(raw) > MaxURLLength {
		return head{}, urlError(raw, "longer than "+strconv.Itoa(MaxURLLength)+" bytes", nil)
	}
	s := stripSpace(raw)
	if s == "" {
		return head{}, urlError(raw, "empty", ErrNotAbsolute)
	}

	colon := schemeEnd(s)
	if colon < 0 {
		return head{}, urlError(raw, "no scheme", ErrNotAbsolute)
	}
	var p head
	switch sc := s[:colon]; {
	case strings.EqualFold(sc, "http"):
		p.scheme = "http"
	case strings.EqualFold(sc, "https"):
		p.scheme = "https"
	default:
		if len(sc) > 16 {
			sc = sc[:16] + "..."
		}
		return head{}, urlError(raw, "scheme "+strconv.Quote(strings.ToLower(sc))+" is not http or https", ErrUnsupportedScheme)
	}
	s = s[colon+1:]
	if !strings.HasPrefix(s, "//") {
		return head{}, urlError(raw, "no \"//\" and authority after the scheme", nil)
	}
	s = s[2:]

	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	end := strings.IndexAny(s, "/?")
	if end < 0 {
		end = len(s)
	}
	auth := s[:end]
	p.rest = s[end:]
	// Browsers read a backslash as "/", so "http://a.example\@b.example/"
	// leads them to a.example; dropping "userinfo" up to the "@" would lead
	// heed to b.example. Refuse rather than guess.
	if strings.IndexByte(auth, '\\') >= 0 {
		return head{}, urlError(raw, "backslash in authority", nil)
	}
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}

	hostPart, portPart, hasPort, reason := splitHostPort(auth)
	if reason != "" {
		return head{}, urlError(raw, reason, nil)
	}
	host, reason := canonicalHost(hostPart)
	if reason != "" {
		return head{}, urlError(raw, reason, nil)
	}
	p.host = host
	if hasPort {
		port, reason := canonicalPort(portPart, p.scheme)
		if reason != "" {
			return head{}, urlError(raw, reason, nil)
		}
		p.port = port
	}
	return p, nil
}

// stripSpace removes what browsers remove from a link before parsing it:
// leading and trailing C0 controls and spaces, and tabs and line breaks
// anywhere. It allocates only when there is something to remove inside.
func stripSpace(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	if strings.IndexAny(s, "\t\n\r") < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && c != '\n' && c != '\r' {
			b = append(b, c)
		}
	}
	return string(b)
}

// schemeEnd returns the index of the colon ending s's scheme, or -1 when s
// does not start with a scheme (RFC 3986 §3.1: a letter, then letters,
// digits, "+", "-" and ".").
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// splitHostPort splits an authority without userinfo into host and port.
// A bracketed IPv6 literal keeps its brackets.
func splitHostPort(auth string) (host, port string, hasPort bool, reason string) {
	if strings.HasPrefix(auth, "[") {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return "", "", false, "unclosed \"[\" in host"
		}
		host, after := auth[:end+1], auth[end+1:]
		if after == "" {
			return host, "", false, ""
		}
		if after[0] != ':' {
			return "", "", false, "characters after \"]\" in host"
		}
		return host, after[1:], true, ""
	}
	if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		return auth[:i], auth[i+1:], true, ""
	}
	return auth, "", false, ""
}

// canonicalPort returns the port without leading zeros, or "" when it is
// empty or the scheme's default.
func canonicalPort(port, scheme string) (string, string) {
	if port == "" {
		return "", ""
	}
	n := 0
	for i := 0; i < len(port); i++ {
		c := port[i]
		if c < '0' || c > '9' {
			return "", "port " + strconv.Quote(port) + " is not a number"
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return "", "port " + strconv.Quote(port) + " is out of range"
		}
	}
	switch {
	case n == 0:
		return "", "port 0 cannot be fetched"
	case n == 80 && scheme == "http", n == 443 && scheme == "https":
		return "", ""
	}
	if port[0] != '0' {
		return port, ""
	}
	return strconv.Itoa(n), ""
}

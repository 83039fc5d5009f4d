package robots

import (
	"fmt"
	"strings"
)

// field is the kind of a robots.txt line.
type field uint8

const (
	fieldNone         field = iota // blank or comment-only line
	fieldInvalid                   // a line that could not be split into name and value
	fieldUnknown                   // a name heed does not know
	fieldUserAgent                 // user-agent
	fieldAllow                     // allow
	fieldDisallow                  // disallow
	fieldCrawlDelay                // crawl-delay
	fieldSitemap                   // sitemap
	fieldContentUsage              // content-usage (draft-ietf-aipref-attach)
)

// canonicalName is how a field is spelled in messages.
func (f field) canonicalName() string {
	switch f {
	case fieldUserAgent:
		return "User-agent"
	case fieldAllow:
		return "Allow"
	case fieldDisallow:
		return "Disallow"
	case fieldCrawlDelay:
		return "Crawl-delay"
	case fieldSitemap:
		return "Sitemap"
	case fieldContentUsage:
		return "Content-Usage"
	}
	return ""
}

// fieldNames maps every accepted spelling, lower-cased, to its field. The
// misspellings are those a large crawler is known to accept (Google's
// open-source parser accepts the user-agent, disallow and sitemap ones);
// accepting them is what the site owner meant, and Lint still reports them
// because other crawlers may not.
var fieldNames = map[string]struct {
	f    field
	typo bool
}{
	"user-agent":  {fieldUserAgent, false},
	"useragent":   {fieldUserAgent, true},
	"user agent":  {fieldUserAgent, true},
	"user-agents": {fieldUserAgent, true},
	"user_agent":  {fieldUserAgent, true},
	"allow":       {fieldAllow, false},
	"disallow":    {fieldDisallow, false},
	"dissallow":   {fieldDisallow, true},
	"disalow":     {fieldDisallow, true},
	"disallaw":    {fieldDisallow, true},
	"dissalow":    {fieldDisallow, true},
	"diasllow":    {fieldDisallow, true},
	"crawl-delay": {fieldCrawlDelay, false},
	"crawldelay":  {fieldCrawlDelay, true},
	"crawl delay": {fieldCrawlDelay, true},
	"crawl_delay": {fieldCrawlDelay, true},
	"sitemap":     {fieldSitemap, false},
	"site-map":    {fieldSitemap, true},
	"site map":    {fieldSitemap, true},
	// draft-ietf-aipref-attach-05 §4.
	"content-usage": {fieldContentUsage, false},
	"content usage": {fieldContentUsage, true},
	"contentusage":  {fieldContentUsage, true},
	"content_usage": {fieldContentUsage, true},
}

// longestFieldName bounds the lookup so that a long unknown name is never
// lower-cased.
const longestFieldName = len("content-usage")

// lookupField returns the field a name (as written, any case) stands for
// and whether the spelling is a tolerated misspelling.
func lookupField(name string) (field, bool) {
	if len(name) > longestFieldName {
		return fieldUnknown, false
	}
	var buf [longestFieldName]byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	// The compiler does not allocate for a map lookup keyed by string(bytes).
	e, ok := fieldNames[string(buf[:len(name)])]
	if !ok {
		return fieldUnknown, false
	}
	return e.f, e.typo
}

// isSpace reports whether c is ASCII white space other than a line end.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f'
}

// trimSpace trims ASCII white space from both ends of s without allocating.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// splitLine splits a line (already without its comment and trimmed) into
// name and value. A colon separates them; without one, Google accepts white
// space instead when the line is exactly two words ("disallow /"), and so
// does heed. ok is false when the line cannot be split.
func splitLine(line string) (name, value string, noColon, ok bool) {
	if c := strings.IndexByte(line, ':'); c >= 0 {
		name = trimSpace(line[:c])
		return name, trimSpace(line[c+1:]), false, name != ""
	}
	sp := -1
	for i := 0; i < len(line); i++ {
		if isSpace(line[i]) {
			sp = i
			break
		}
	}
	if sp < 0 {
		return "", "", true, false
	}
	name, value = line[:sp], trimSpace(line[sp:])
	for i := 0; i < len(value); i++ {
		if isSpace(value[i]) {
			return "", "", true, false // more than two words
		}
	}
	return name, value, true, true
}

// isTokenChar reports whether c may appear in a product token (RFC 9309
// §2.2.1: letters, "-" and "_").
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
}

// ValidProductToken reports whether tok is a product token as RFC 9309
// §2.2.1 defines it: one or more letters, "-" or "_". heed refuses to crawl
// with an invalid token, and [File.Group] selects no named group for one.
func ValidProductToken(tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if !isTokenChar(tok[i]) {
			return false
		}
	}
	return true
}

// isAgentChar reports whether c may appear in the name of an agent as
// real files write it: a product token's characters and digits
// ("MJ12bot", "360Spider").
func isAgentChar(c byte) bool {
	return isTokenChar(c) || '0' <= c && c <= '9'
}

// MatchableToken reports whether tok can select a named group: a product
// token (see [ValidProductToken]), or a name that also has digits, as real
// files name agents such as MJ12bot and 360Spider although RFC 9309 allows
// no digit in a product token. [File.Group] matches such a name against
// user-agent lines as a whole token, case-insensitively; [TokenNote] says
// how other parsers read those lines.
func MatchableToken(tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if !isAgentChar(tok[i]) {
			return false
		}
	}
	return true
}

// TokenNote explains, in one line, how a name with digits is read when it
// appears on a user-agent line: by heed as a whole token, by an RFC-strict
// parser as no product token at all, and by Google's open-source parser
// (robots.cc ExtractUserAgent) as its letters, "-" and "_" up to the first
// other character. It returns "" for a product token RFC 9309 allows and
// for a name heed cannot match (see [MatchableToken]).
func TokenNote(tok string) string {
	if ValidProductToken(tok) || !MatchableToken(tok) {
		return ""
	}
	i := 0
	for i < len(tok) && isTokenChar(tok[i]) {
		i++
	}
	google := fmt.Sprintf("reads it as %q", tok[:i])
	if i == 0 {
		google = "reads it as naming no crawler"
	}
	return fmt.Sprintf("%q has digits, which RFC 9309 does not allow in a product token: heed matches it as a whole token, case-insensitively; an RFC-strict parser does not read it as a product token, and Google's open-source parser %s", tok, google)
}

// agentToken reads a user-agent line's value: whether it is the catch-all
// "*" and otherwise the name it gives (the value up to the first character
// that is not a letter, digit, "-" or "_"; "FooBot/1.2" names FooBot,
// "Foo Bar" names Foo, "MJ12bot" names MJ12bot). An empty token names no
// crawler.
func agentToken(value string) (star bool, token string) {
	if value != "" && value[0] == '*' && (len(value) == 1 || isSpace(value[1])) {
		return true, ""
	}
	i := 0
	for i < len(value) && isAgentChar(value[i]) {
		i++
	}
	return false, value[:i]
}

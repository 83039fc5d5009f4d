package robots

import (
	"net/url"
	"strings"

	"github.com/agnivade/levenshtein"
)

// sensitiveWords are path words that tell a reader of robots.txt where
// something worth finding is. RFC 9309 §3: "listing paths in the
// robots.txt file exposes them publicly".
var sensitiveWords = []string{
	"admin", "secret", "private", "backup", "internal", ".git", ".env", ".svn",
	".htpasswd", ".htaccess", "config", "password", "passwd", "credential",
	"staging", "dump", ".sql",
}

// sensitiveWord returns the first sensitive word in a Disallow value,
// case-insensitively, or "".
func sensitiveWord(v string) string {
	lv := strings.ToLower(v)
	for _, w := range sensitiveWords {
		if strings.Contains(lv, w) {
			return w
		}
	}
	return ""
}

// lowerPath lower-cases the ASCII letters of a pattern, leaving the hex
// digits of percent-escapes alone (they are not part of the path's case).
func lowerPath(v string) string {
	b := []byte(v)
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			i += 2
			continue
		}
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// isURL reports whether v parses as a URL reference.
func isURL(v string) bool {
	_, err := url.Parse(v)
	return err == nil
}

// closestField guesses which field an unknown name was meant to be: one
// whose name is at most two edits away (and the name is not too short to
// guess from), else fieldUnknown.
func closestField(name string) field {
	if len(name) < 4 || len(name) > 20 {
		return fieldUnknown
	}
	n := strings.ToLower(name)
	best, bestDist := fieldUnknown, 3
	for _, f := range []field{fieldUserAgent, fieldAllow, fieldDisallow, fieldCrawlDelay, fieldSitemap, fieldContentUsage} {
		if d := levenshtein.ComputeDistance(n, strings.ToLower(f.canonicalName())); d < bestDist {
			best, bestDist = f, d
		}
	}
	return best
}

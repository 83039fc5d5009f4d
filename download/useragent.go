package download

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/heedcrawl/heed/middleware"
)

// DefaultUserAgent returns the User-Agent heed sends for a product token.
func DefaultUserAgent(agent string) string {
	return "Mozilla/5.0 (compatible; " + agent + "/1.0; +https://github.com/heedcrawl/heed)"
}

// UserAgentHasToken reports whether the User-Agent header value contains
// the product token as a whole word (case-insensitively).
func UserAgentHasToken(ua, token string) bool {
	lu, lt := strings.ToLower(ua), strings.ToLower(token)
	for from := 0; ; {
		i := strings.Index(lu[from:], lt)
		if i < 0 {
			return false
		}
		i += from
		before := i == 0 || !tokenChar(lu[i-1])
		end := i + len(lt)
		after := end == len(lu) || !tokenChar(lu[end])
		if before && after {
			return true
		}
		from = i + 1
	}
}

func tokenChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '-' || b == '_'
}

// CheckUserAgent reports why ua cannot be the User-Agent of a crawler
// whose product token is agent: it must name the token as a whole word
// (UserAgentHasToken), so that sites can address the crawler in
// robots.txt, and hold no control character (CR and LF would split the
// request's header; every request would fail locally and be taken for an
// unreachable host). crawler.New refuses such a User-Agent with this
// error.
func CheckUserAgent(ua, agent string) error {
	for i, r := range ua {
		if unicode.IsControl(r) {
			return fmt.Errorf("the User-Agent %q holds a control character (%U at byte %d); a header value cannot", ua, r, i)
		}
	}
	if !UserAgentHasToken(ua, agent) {
		return fmt.Errorf("the User-Agent %q does not contain the product token %q; sites could not address heed in robots.txt", ua, agent)
	}
	return nil
}

// CheckHeader reports why a header cannot be sent with every request
// (crawler.WithHeaders), or nil: middleware.CheckHeader, with the
// downloader's own call header reserved.
func CheckHeader(name, value string) error {
	return middleware.CheckHeader(name, value, callHeader)
}

package crawler

import (
	"fmt"
	"unicode"
)

// CheckUserAgent reports why ua cannot be the User-Agent of a crawler
// whose product token is agent: it must name the token as a whole word
// (UserAgentHasToken), so that sites can address the crawler in
// robots.txt, and hold no control character (CR and LF would split the
// request's header; every request would fail locally and be taken for an
// unreachable host). New refuses such a User-Agent with this error.
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

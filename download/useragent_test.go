package download_test

import (
	"testing"

	"github.com/heedcrawl/heed/download"
)

// TestUserAgentHasToken: the product token must appear as a whole word,
// in any case, for robots.txt groups to address the crawler.
func TestUserAgentHasToken(t *testing.T) {
	for _, tt := range []struct {
		ua   string
		want bool
	}{
		{"HeedBot/1.0", true},
		{"Mozilla/5.0 (compatible; heedbot/1.0)", true},
		{"HEEDBOT", true},
		{"x HeedBot-y", false},   // '-' joins: HeedBot-y is another token
		{"MyHeedBot/1.0", false}, // a longer token
		{"HeedBot_2/1.0", false}, // '_' joins too
		{"HeedBo/1.0 t", false},  // a prefix
		{"Heed HeedBot", true},   // found after a miss
		{"", false},
	} {
		if got := download.UserAgentHasToken(tt.ua, "HeedBot"); got != tt.want {
			t.Errorf("UserAgentHasToken(%q) = %v, want %v", tt.ua, got, tt.want)
		}
	}
	if ua := download.DefaultUserAgent("HeedBot"); download.CheckUserAgent(ua, "HeedBot") != nil {
		t.Errorf("the default User-Agent %q fails its own check", ua)
	}
}

// TestCheckHeaderReservesTheCallHeader: the header that carries a call
// to the transport cannot be set for every request, nor can the identity
// headers middleware.CheckHeader refuses.
func TestCheckHeaderReservesTheCallHeader(t *testing.T) {
	for _, name := range []string{"X-Heed-Call", "x-heed-call", "User-Agent", "Host"} {
		if download.CheckHeader(name, "v") == nil {
			t.Errorf("CheckHeader accepts %s", name)
		}
	}
	if err := download.CheckHeader("Authorization", "Bearer t"); err != nil {
		t.Errorf("CheckHeader refuses Authorization: %v", err)
	}
}

package crawler_test

import (
	"strings"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/download"
)

// TestNewRefusesUserAgentsThatCannotBeSent is issue 9, item 11 for
// library users: a User-Agent with CR, LF or another control character
// would make every request fail locally, and is refused; so is one that
// does not name the product token.
func TestNewRefusesUserAgentsThatCannotBeSent(t *testing.T) {
	for _, tt := range []struct {
		ua   string
		want string // "" for accepted
	}{
		{"HeedBot/1.0", ""},
		{"Mozilla/5.0 (compatible; HeedBot/1.0; +https://example.com/bot)", ""},
		{"HeedBot/1.0\r\nX-Injected: 1", "control character"},
		{"HeedBot/1.0\n", "control character"},
		{"HeedBot/1.0\x00", "control character"},
		{"HeedBot\t1.0", "control character"},
		{"HeedBot/1.0\x7f", "control character"},
		{"Mozilla/5.0", "does not contain the product token"},
	} {
		_, err := crawler.New("HeedBot", crawler.WithUserAgent(tt.ua))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q refused: %v", tt.ua, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: error %v, want %q", tt.ua, err, tt.want)
		}
		if tt.want != "" && download.CheckUserAgent(tt.ua, "HeedBot") == nil {
			t.Errorf("CheckUserAgent accepts %q", tt.ua)
		}
	}
}

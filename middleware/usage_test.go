package middleware_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/middleware"
)

// TestUsageSummary checks the usage cell of the sitemap inventory, read
// from robots.txt alone, on the usage host's robots.txt.
func TestUsageSummary(t *testing.T) {
	body := []byte(strings.Join(testweb.UsageRobotsTxt, "\n") + "\n")
	rf := &middleware.RobotsFetch{URL: "http://a.test/robots.txt", FinalURL: "http://a.test/robots.txt", Status: 200, State: middleware.RobotsAvailable, Body: body}
	e := middleware.NewRobotsEntry("http://a.test", rf, "HeedBot", 0)
	tests := []struct{ path, want string }{
		{"/", "train-ai=n (line 4)"},
		{"/open/a", "train-ai=y (line 5)"},
		{"/conflict/a", "train-ai=n (line 7)"},
		{"/search/a", "search=n (line 8)"},
		{"/private/x", ""}, // not crawlable: no preference applies
	}
	for _, tt := range tests {
		u, _ := url.Parse("http://a.test" + tt.path)
		if got := middleware.UsageSummary(e, u); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.path, got, tt.want)
		}
	}
}

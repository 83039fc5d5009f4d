package middleware_test

import (
	"net/url"
	"testing"

	"github.com/heedcrawl/heed/middleware"
)

// TestRobotsEntryFor: one fetched file answers for the tokens it was
// parsed for, each with its own group and deciding rule.
func TestRobotsEntryFor(t *testing.T) {
	body := "User-agent: Googlebot\nDisallow: /g\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /all\n"
	rf := &middleware.RobotsFetch{URL: "http://a.test/robots.txt", FinalURL: "http://a.test/robots.txt", Status: 200,
		State: middleware.RobotsAvailable, Body: []byte(body)}
	e := middleware.NewRobotsEntry("http://a.test", rf, "HeedBot", 0, "Googlebot", "gptbot", "Bingbot")
	u, _ := url.Parse("http://a.test/g/page")
	for _, tc := range []struct {
		agent   string
		allowed bool
		line    int
	}{
		{"HeedBot", true, 0}, {"googlebot", false, 2}, {"GPTBot", false, 5}, {"Bingbot", true, 0},
	} {
		ea, ok := e.For(tc.agent)
		if !ok {
			t.Fatalf("For(%s): not parsed for it", tc.agent)
		}
		d := middleware.DecideRobots(ea, u, 0)
		if d.Allowed != tc.allowed || d.Evidence().Line != tc.line {
			t.Errorf("%s: allowed %v line %d, want %v line %d", tc.agent, d.Allowed, d.Evidence().Line, tc.allowed, tc.line)
		}
	}
	if _, ok := e.For("YandexBot"); ok {
		t.Error("For a token the file was not parsed for answered")
	}
	if own, _ := e.For("HeedBot"); own != e {
		t.Error("For the entry's own token is not the entry")
	}
	down := middleware.NewRobotsEntry("http://b.test", &middleware.RobotsFetch{URL: "http://b.test/robots.txt", Status: 503, State: middleware.RobotsUnreachable}, "HeedBot", 0)
	if eb, ok := down.For("Googlebot"); !ok || eb.State != middleware.RobotsUnreachable {
		t.Error("an unreachable file does not answer for every token")
	}
}

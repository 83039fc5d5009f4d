package middleware_test

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// TestRobotsReport: a decision is reported with its deciding rule, its
// group and the robots.txt that decided, whichever of RFC 9309's cases
// made it; Outcome and Evidence say it in one cell each.
func TestRobotsReport(t *testing.T) {
	body := "User-agent: *\nDisallow: /\n\nUser-agent: HeedBot\nUser-agent: OtherBot\nDisallow: /private/\nAllow: /private/open\n"
	available := middleware.NewRobotsEntry("http://a.test", &middleware.RobotsFetch{URL: "http://a.test/robots.txt",
		FinalURL: "http://a.test/robots.txt", Status: 200, State: middleware.RobotsAvailable, Body: []byte(body)}, "HeedBot", 0)
	missing := middleware.NewRobotsEntry("http://b.test", &middleware.RobotsFetch{URL: "http://b.test/robots.txt", Status: 404,
		State: middleware.RobotsUnavailable}, "HeedBot", 0)
	down := middleware.NewRobotsEntry("http://c.test", &middleware.RobotsFetch{URL: "http://c.test/robots.txt", Status: 503,
		State: middleware.RobotsUnreachable}, "HeedBot", 0)
	group, lines := []string{"HeedBot", "OtherBot"}, []int{4, 5}
	for _, tc := range []struct {
		e        *middleware.RobotsEntry
		path     string
		want     middleware.RobotsReport
		outcome  string
		evidence string
	}{
		{available, "/private/x", middleware.RobotsReport{Reason: skiplog.RobotsDisallow, Line: 6, Rule: "Disallow: /private/",
			Group: group, GroupLines: lines, RobotsURL: "http://a.test/robots.txt", RobotsStatus: 200, RobotsState: "available"},
			"robots-disallow", "line 6: Disallow: /private/ (group HeedBot OtherBot)"},
		{available, "/private/open", middleware.RobotsReport{Allowed: true, Line: 7, Rule: "Allow: /private/open",
			Group: group, GroupLines: lines, RobotsURL: "http://a.test/robots.txt", RobotsStatus: 200, RobotsState: "available"},
			"allowed", "line 7: Allow: /private/open (group HeedBot OtherBot)"},
		{available, "/public", middleware.RobotsReport{Allowed: true, Group: group, GroupLines: lines,
			RobotsURL: "http://a.test/robots.txt", RobotsStatus: 200, RobotsState: "available"}, "allowed", ""},
		{available, "/robots.txt", middleware.RobotsReport{Allowed: true, Implicit: true, Group: group, GroupLines: lines,
			RobotsURL: "http://a.test/robots.txt", RobotsStatus: 200, RobotsState: "available"}, "allowed", ""},
		{missing, "/private/x", middleware.RobotsReport{Allowed: true, RobotsURL: "http://b.test/robots.txt", RobotsStatus: 404,
			RobotsState: "unavailable"}, "allowed", ""},
		{down, "/public", middleware.RobotsReport{Reason: skiplog.RobotsUnreachable, RobotsURL: "http://c.test/robots.txt",
			RobotsStatus: 503, RobotsState: "unreachable"}, "robots-unreachable", ""},
	} {
		u, _ := url.Parse("http://x.test" + tc.path)
		got := middleware.DecideRobots(tc.e, u, 0).Report()
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s:\n got %+v\nwant %+v", tc.e.URL, tc.path, got, tc.want)
		}
		if got.Outcome() != tc.outcome || got.Evidence() != tc.evidence {
			t.Errorf("%s %s: outcome %q evidence %q, want %q %q", tc.e.URL, tc.path, got.Outcome(), got.Evidence(), tc.outcome, tc.evidence)
		}
	}
}

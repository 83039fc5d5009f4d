package pagepolicy

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/middleware"
)

// usageRobots are robots.txt files with Content-Usage rules, for the
// usage tests and the benchmark.
var usageRobots = map[string]string{
	"none":      "User-agent: *\nDisallow: /private/\n",
	"site-wide": "User-agent: *\nContent-Usage: train-ai=n, search=y\n",
	"paths": strings.Join([]string{
		"User-agent: *",
		"Allow: /",
		"Disallow: /private/",
		"Content-Usage: train-ai=n",
		"Content-Usage: /open/ train-ai=y",
		"Content-Usage: /conflict/ train-ai=y",
		"Content-Usage: /conflict/ train-ai=n",
		"Content-Usage: /search/ search=n",
		"Content-Usage: /both/ train-ai=y, search=y",
		"Content-Usage: /bad/ train-ai=maybe, search=(y n)",
		"Content-Usage: /*.pdf$ search=n",
	}, "\n") + "\n",
	"groups": strings.Join([]string{
		"User-agent: OtherBot",
		"Content-Usage: train-ai=y",
		"",
		"User-agent: HeedBot",
		"Disallow: /private/",
		"Content-Usage: /ai/ train-ai=n",
		"Content-Usage: search=y",
		"",
		"User-agent: *",
		"Content-Usage: search=n",
	}, "\n") + "\n",
	"malformed": "User-agent: *\nContent-Usage: train-ai=\nContent-Usage: /x/ search=n;;\n",
}

// usageHeaders are Content-Usage headers a page may carry (nil: none, as
// the sitemap inventory and `heed robots check` decide).
var usageHeaders = []http.Header{
	nil,
	{},
	{"Content-Usage": {"train-ai=n"}},
	{"Content-Usage": {"train-ai=y, search=n"}},
	{"Content-Usage": {"search=y", "train-ai=y"}},
	{"Content-Usage": {"train-ai=y", "train-ai=n"}},
	{"Content-Usage": {"not a dictionary ("}},
	{"Content-Usage": {"Train-AI=n, other=n"}},
}

var usagePaths = []string{"/", "/p", "/open/a", "/conflict/a", "/search/a", "/both/x", "/bad/x", "/doc.pdf", "/ai/m", "/x/y", "/private/x", "/robots.txt"}

// usageEntry is the robots.txt entry of http://a.test for body, as
// HeedBot reads it; a body of "" is no robots.txt at all (a nil entry).
func usageEntry(body string) *middleware.RobotsEntry {
	if body == "" {
		return nil
	}
	rf := &middleware.RobotsFetch{URL: "http://a.test/robots.txt", FinalURL: "http://a.test/robots.txt", Status: 200, State: middleware.RobotsAvailable, Body: []byte(body)}
	return middleware.NewRobotsEntry("http://a.test", rf, "HeedBot", 0)
}

// perCategory is the usage preference of every category as heed decided
// it before Usage read a page once: for each category, the robots.txt
// rules of u read again, the header parsed again, and the two combined.
func perCategory(e *middleware.RobotsEntry, u *url.URL, h http.Header) []aipref.Decision {
	var out []aipref.Decision
	for _, c := range aipref.Categories {
		stmts := middleware.UsageStatements(e, u)
		if h != nil {
			if s, ok := aipref.FromHeader(h, u.String()); ok {
				stmts = append(stmts, s)
			}
		}
		out = append(out, aipref.Combine(c.Label, stmts...))
	}
	return out
}

// TestUsageOnePassDecidesAsPerCategory: Usage, which reads a page's
// robots.txt rules and header once for every category, gives each
// category the decision, with the same deciding statement, that deciding
// it alone gives, over robots.txt files, paths and headers; and
// middleware.DecideUsage and middleware.UsageSummary agree with it.
func TestUsageOnePassDecidesAsPerCategory(t *testing.T) {
	bodies := map[string]string{"no robots.txt": ""}
	for name, body := range usageRobots {
		bodies[name] = body
	}
	n := 0
	for name, body := range bodies {
		e := usageEntry(body)
		for _, p := range usagePaths {
			u, _ := url.Parse("http://a.test" + p)
			for _, h := range usageHeaders {
				got, want := Usage(e, u, h), perCategory(e, u, h)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s, header %v:\n one pass     %v\n per category %v", name, p, h, got, want)
				}
				for i, c := range aipref.Categories {
					if d := middleware.DecideUsage(e, u, h, c.Label); !reflect.DeepEqual(d, want[i]) {
						t.Errorf("%s, %s, header %v: DecideUsage(%s) %v, want %v", name, p, h, c.Label, d, want[i])
					}
				}
				n++
			}
			if got, want := middleware.UsageSummary(e, u), summaryOf(perCategory(e, u, nil)); got != want {
				t.Errorf("%s, %s: UsageSummary %q, want %q", name, p, got, want)
			}
		}
	}
	t.Logf("%d pages compared", n)
}

// FuzzUsage: whatever robots.txt, path and Content-Usage header a site
// sends, Usage decides without panic, one decision per category, each
// the decision of that category alone; the inventory's cell agrees.
func FuzzUsage(f *testing.F) {
	for _, body := range usageRobots {
		for i, h := range usageHeaders {
			line := ""
			if len(h) > 0 {
				line = h.Get("Content-Usage")
			}
			f.Add(body, usagePaths[i%len(usagePaths)], line)
		}
	}
	f.Fuzz(func(t *testing.T, body, path, header string) {
		u, err := url.Parse("http://a.test/" + strings.TrimPrefix(path, "/"))
		if err != nil {
			return
		}
		e := usageEntry(body)
		h := http.Header{}
		if header != "" {
			h["Content-Usage"] = strings.Split(header, "\n")
		}
		got, want := Usage(e, u, h), perCategory(e, u, h)
		if len(got) != len(aipref.Categories) || !reflect.DeepEqual(got, want) {
			t.Fatalf("one pass %v, per category %v", got, want)
		}
		if got, want := middleware.UsageSummary(e, u), summaryOf(perCategory(e, u, nil)); got != want {
			t.Fatalf("UsageSummary %q, want %q", got, want)
		}
	})
}

// summaryOf is the inventory's usage cell of decisions, as
// middleware.UsageSummary writes it.
func summaryOf(ds []aipref.Decision) string {
	var parts []string
	for _, d := range ds {
		if d.Value != aipref.Unknown && d.By != nil {
			parts = append(parts, fmt.Sprintf("%s=%s (line %d)", d.Label, d.Value, d.By.Line))
		}
	}
	return strings.Join(parts, "; ")
}

// BenchmarkUsage is the cost of one page's usage preference (every
// category of the vocabulary), robots.txt rules and a header, as the
// crawl reads it on every response; PerCategory, its peer in the same
// run, decides each category alone, as heed did before.
func BenchmarkUsage(b *testing.B) {
	e := usageEntry(usageRobots["paths"])
	u, _ := url.Parse("http://a.test/conflict/a")
	h := http.Header{"Content-Usage": {"train-ai=y, search=n"}}
	b.Run("Usage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Usage(e, u, h)
		}
	})
	b.Run("PerCategory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			perCategory(e, u, h)
		}
	})
}

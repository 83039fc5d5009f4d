package robots_test

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/robots"
	"github.com/temoto/robotstxt"
)

// The benchmarks run heed beside github.com/temoto/robotstxt (a test-only
// dependency) on the same inputs, so that the figures are read as ratios:
//
//	go test -run='^$' -bench=. -benchmem -count=6 ./robots/ | tee out.txt
//	benchstat out.txt

const benchAgent = "heedbot" // selects the "*" group of the realistic file

func readBench(b testing.TB, name string) string {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func benchURLs(b testing.TB) []string {
	return strings.Fields(readBench(b, "urls.txt"))
}

// BenchmarkDecide: one verdict for each of 200 shop URLs against the
// 232-rule realistic file, the group selected once as heed's middleware
// does. ns/op is per URL.
func BenchmarkDecide(b *testing.B) {
	body := readBench(b, "realistic_robots.txt")
	paths := benchURLs(b)
	b.Run("heed", func(b *testing.B) {
		g := robots.Parse([]byte(body)).Group(benchAgent)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			g.Decide(paths[i%len(paths)])
			i++
		}
	})
	b.Run("heed-URL", func(b *testing.B) {
		g := robots.Parse([]byte(body)).Group(benchAgent)
		us := make([]*url.URL, len(paths))
		for i, p := range paths {
			u, err := url.Parse("https://shop.example.com" + p)
			if err != nil {
				b.Fatal(err)
			}
			us[i] = u
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			g.DecideURL(us[i%len(us)])
			i++
		}
	})
	b.Run("temoto-FindGroup-Test", func(b *testing.B) {
		r, err := robotstxt.FromString(body)
		if err != nil {
			b.Fatal(err)
		}
		g := r.FindGroup(benchAgent)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			g.Test(paths[i%len(paths)])
			i++
		}
	})
	b.Run("temoto-TestAgent", func(b *testing.B) {
		r, err := robotstxt.FromString(body)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r.TestAgent(paths[i%len(paths)], benchAgent)
			i++
		}
	})
}

// bigFile is a robots.txt of exactly robots.DefaultMaxBytes bytes: the
// realistic file's rules repeated under numbered prefixes, with comments
// and blank lines, in a few groups.
func bigFile(b testing.TB) []byte {
	var rules []string
	for _, l := range strings.Split(readBench(b, "realistic_robots.txt"), "\n") {
		if strings.HasPrefix(l, "Disallow: /") || strings.HasPrefix(l, "Allow: /") {
			rules = append(rules, l)
		}
	}
	var sb strings.Builder
	for i := 0; sb.Len() < robots.DefaultMaxBytes-200; i++ {
		if i%500 == 0 {
			fmt.Fprintf(&sb, "\n# section %d\nUser-agent: %s\nUser-agent: bot%d\n", i/500, []string{"*", "Googlebot", "Bingbot"}[i/500%3], i)
		}
		r := rules[i%len(rules)]
		colon := strings.IndexByte(r, ':')
		fmt.Fprintf(&sb, "%s: /v%d%s\n", r[:colon], i/len(rules), r[colon+2:])
	}
	for sb.Len() < robots.DefaultMaxBytes {
		sb.WriteString("#")
	}
	return []byte(sb.String()[:robots.DefaultMaxBytes])
}

// BenchmarkParse500KiB: parsing a 500 KiB file.
func BenchmarkParse500KiB(b *testing.B) {
	body := bigFile(b)
	b.Run("heed", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			robots.Parse(body)
		}
	})
	b.Run("heed-Parse+Group", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			robots.Parse(body).Group(benchAgent)
		}
	})
	b.Run("temoto", func(b *testing.B) {
		if _, err := robotstxt.FromBytes(body); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			robotstxt.FromBytes(body)
		}
	})
}

// BenchmarkPathological: patterns of 100 "*" against a 4 KiB path that they
// do not match. "stars" is one run of 100 stars; "segments" puts a literal
// between the stars, the shape that makes backtracking matchers explode.
func BenchmarkPathological(b *testing.B) {
	path := "/" + strings.Repeat("a", 4095)
	patterns := map[string]string{
		"stars":    "/" + strings.Repeat("*", 100) + "b",
		"segments": "/" + strings.Repeat("*a", 100) + "*b$",
	}
	for _, name := range []string{"stars", "segments"} {
		body := "User-agent: *\nDisallow: " + patterns[name] + "\n"
		b.Run(name+"/heed", func(b *testing.B) {
			g := robots.Parse([]byte(body)).Group(benchAgent)
			if !g.Decide(path).Allowed {
				b.Fatal("matched")
			}
			b.ReportAllocs()
			for b.Loop() {
				g.Decide(path)
			}
		})
		b.Run(name+"/temoto", func(b *testing.B) {
			r, err := robotstxt.FromString(body)
			if err != nil {
				b.Fatal(err)
			}
			g := r.FindGroup(benchAgent)
			if !g.Test(path) {
				b.Fatal("matched")
			}
			b.ReportAllocs()
			for b.Loop() {
				g.Test(path)
			}
		})
	}
}

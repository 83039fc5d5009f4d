package robots_test

import (
	"fmt"
	"net/url"

	"github.com/heedcrawl/heed/robots"
)

func ExampleGroup_Decide() {
	body := []byte(`User-agent: *
Disallow: /search
Allow: /search/help   # the help pages may be crawled
Disallow: /*.pdf$
Crawl-delay: 0.5

User-agent: GPTBot
Disallow: /

Sitemap: /sitemap.xml
`)
	f := robots.Parse(body)
	g := f.Group("ExampleBot") // no group names ExampleBot: "*" applies
	for _, p := range []string{"/search?q=shoes", "/search/help", "/manual.pdf", "/manual.pdf?v=2", "/robots.txt"} {
		fmt.Println(p, "->", g.Decide(p))
	}
	d, _ := g.CrawlDelay()
	fmt.Println("crawl-delay:", d)

	u, _ := url.Parse("https://example.com/shop/%7Eitem?id=7")
	fmt.Println(u, "->", f.Group("gptbot").DecideURL(u))

	base, _ := url.Parse("https://example.com/robots.txt")
	for _, s := range f.ResolveSitemaps(base) {
		fmt.Println("sitemap:", s.URL, "line", s.Line, "relative", s.Relative)
	}
	// Output:
	// /search?q=shoes -> disallowed by line 2 "Disallow: /search" of user-agent "*" (line 1)
	// /search/help -> allowed by line 3 "Allow: /search/help" of user-agent "*" (line 1)
	// /manual.pdf -> disallowed by line 4 "Disallow: /*.pdf$" of user-agent "*" (line 1)
	// /manual.pdf?v=2 -> allowed: no rule matches (user-agent "*" (line 1))
	// /robots.txt -> allowed: /robots.txt is always allowed
	// crawl-delay: 500ms
	// https://example.com/shop/%7Eitem?id=7 -> disallowed by line 8 "Disallow: /" of user-agent "GPTBot" (line 7)
	// sitemap: https://example.com/sitemap.xml line 10 relative true
}

func ExampleLint() {
	body := []byte(`User-agent: *
Disallow: /checkout/
Disallow: /admin/

User-agent: ExampleBot
Dissallow: /drafts/
`)
	for _, f := range robots.Lint(body) {
		fmt.Println(f.Line, f.Severity, f.Code)
	}
	// Output:
	// 3 info disallow-reveals-path
	// 5 warning named-group-drops-star-rules
	// 6 warning misspelled-field
}

package sitemap_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/heedcrawl/heed/sitemap"
)

func ExampleParse() {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/catalog/shoes</loc><lastmod>2024-03-05</lastmod><priority>0.8</priority></url>
  <url><loc>https://example.com/catalog/hats</loc><lastmod>last week</lastmod></url>
  <url><loc>https://shop.example.net/socks</loc></url>
</urlset>`
	rep, err := sitemap.Parse(context.Background(), strings.NewReader(doc), func(e sitemap.Entry) error {
		if e.Problem != "" {
			fmt.Printf("skip %s (%s)\n", e.Loc, e.Problem)
			return nil
		}
		fmt.Printf("%s lastmod=%s priority=%.1f\n", e.Loc, e.LastMod.Format("2006-01-02"), e.Priority)
		return nil
	}, sitemap.WithBase("https://example.com/sitemap.xml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep)
	for _, p := range rep.Problems {
		fmt.Println(p)
	}
	// Output:
	// https://example.com/catalog/shoes lastmod=2024-03-05 priority=0.8
	// https://example.com/catalog/hats lastmod=0001-01-01 priority=0.0
	// skip https://shop.example.net/socks (out-of-scope)
	// urlset: 2 urls, 0 sitemaps, 1 rejected, 2 problems
	// line 4: lastmod: https://example.com/catalog/hats: lastmod "last week" could not be parsed; kept as written
	// line 5: out-of-scope: https://shop.example.net/socks: not on https://example.com, the sitemap's authority
}

func ExampleWalk() {
	site := map[string]string{
		"https://example.com/sitemap.xml": `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.com/pages.txt</loc></sitemap>
  <sitemap><loc>https://example.com/gone.xml</loc></sitemap>
  <sitemap><loc>https://example.com/sitemap.xml</loc></sitemap>
</sitemapindex>`,
		"https://example.com/pages.txt": "https://example.com/\nhttps://example.com/about\n",
	}
	// The crawler's FetchFunc goes through robots.txt and pacing; this one
	// serves the map.
	fetch := func(ctx context.Context, u string) (io.ReadCloser, error) {
		body, ok := site[u]
		if !ok {
			return nil, fmt.Errorf("%s: 404 Not Found", u)
		}
		return io.NopCloser(bytes.NewReader([]byte(body))), nil
	}
	seen := map[string]bool{}
	wr, err := sitemap.Walk(context.Background(), []string{"https://example.com/sitemap.xml"}, fetch, func(e sitemap.Entry) error {
		if e.Problem == "" && !seen[e.Loc] {
			seen[e.Loc] = true
			fmt.Println(e.Loc, "from", e.Sitemap)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range wr.Sitemaps {
		fmt.Printf("%s depth=%d format=%s urls=%d fetch error=%v\n", s.URL, s.Depth, s.Format, s.URLs, s.FetchErr)
	}
	fmt.Println("loops:", wr.Counts[sitemap.ProblemLoop])
	// Output:
	// https://example.com/ from https://example.com/pages.txt
	// https://example.com/about from https://example.com/pages.txt
	// https://example.com/sitemap.xml depth=0 format=sitemapindex urls=0 fetch error=<nil>
	// https://example.com/pages.txt depth=1 format=text urls=2 fetch error=<nil>
	// https://example.com/gone.xml depth=1 format=unknown urls=0 fetch error=https://example.com/gone.xml: 404 Not Found
	// loops: 1
}

// Command heed is the command line of the heed crawling framework: crawl a
// site politely with heed's generic page spider, check and lint robots.txt
// files, build a sitemap inventory, inspect a crawl's state, merge skip
// logs, and run the built-in demo.
//
// It is the thinnest user of package cli, which gives any spider program
// the same command line: heed adds only its demo.
package main

import (
	"github.com/heedcrawl/heed/cli"
)

// newApp is heed's command line: the page spider and the demo.
func newApp(opts ...cli.Option) *cli.App {
	opts = append([]cli.Option{
		cli.WithDescription("heed: a polite crawling framework with RFC 9309 robots.txt compliance built in"),
		cli.WithSpider(cli.Pages()),
		cli.WithCommand(demoCommand),
	}, opts...)
	return cli.New("heed", opts...)
}

func main() { newApp().Main() }

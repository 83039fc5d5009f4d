package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/heedcrawl/heed/frontier"
)

// checkSeed refuses a seed heed cannot crawl: anything but an absolute
// http or https URL with a host. A seed without a scheme (example.com,
// 127.0.0.1:8080) is refused too, not completed: whether the site is
// served over http or https is the user's to say, and a guess would
// crawl (and name in robots.txt records) another authority.
func checkSeed(s string) error {
	u, err := url.Parse(s)
	switch {
	case !strings.Contains(s, "://"):
		return fmt.Errorf("%q is not a URL: it names no scheme (write https://%s or http://%s)", s, s, s)
	case err != nil:
		return fmt.Errorf("%q is not a URL: %v", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an http or https URL: heed fetches only those", s)
	case u.Host == "":
		return fmt.Errorf("%q names no host", s)
	}
	if _, err := frontier.Canonicalize(s); err != nil {
		return fmt.Errorf("%q cannot be crawled: %v", s, err)
	}
	return nil
}

// checkSeeds checks the seeds and the --sitemap URLs.
func checkSeeds(seeds, sitemaps []string) error {
	for _, s := range seeds {
		if err := checkSeed(s); err != nil {
			return usageError("seed %v", err)
		}
	}
	for _, s := range sitemaps {
		if err := checkSeed(s); err != nil {
			return usageError("--sitemap %v", err)
		}
	}
	return nil
}

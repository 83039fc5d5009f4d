package discovery

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/heedcrawl/heed/sitemap"
)

// Keys of the Meta a page listed in a sitemap carries to its callbacks.
const (
	// MetaSitemap is the URL of the sitemap that listed the page.
	MetaSitemap = "sitemap"
	// MetaLastMod is the <lastmod> as written in the sitemap (RSS pubDate,
	// Atom updated); absent when the sitemap gave none.
	MetaLastMod = "lastmod"
	// MetaChangeFreq is the <changefreq>, lower-cased.
	MetaChangeFreq = "changefreq"
	// MetaPriority is the <priority>, written with at least one decimal
	// ("1.0", "0.85"); absent when the sitemap gave none.
	MetaPriority = "priority"
)

// Defaults of the limits of Config.
const (
	// DefaultDepth is how many levels of sitemap index are followed below
	// a sitemap found in robots.txt or given by the user.
	DefaultDepth = sitemap.DefaultMaxDepth
	// DefaultPerAuthority is how many sitemaps are read from one
	// authority in one crawl.
	DefaultPerAuthority = sitemap.DefaultMaxSitemaps
)

// Config is what a crawl's sitemap options set (the crawler's
// WithSitemap... options fill it).
type Config struct {
	// URLs are sitemaps read whatever else the crawl does.
	URLs []string
	// Discover reads the sitemaps of every authority whose robots.txt is
	// fetched; NoFallback stops it trying /sitemap.xml when robots.txt
	// lists none; Seeds makes the seeds sites whose sitemaps are read.
	Discover, NoFallback, Seeds bool
	// Since, Include and Exclude filter the pages listed (see Refuses);
	// Follow the sitemaps listed (see Follows).
	Since                    time.Time
	Include, Exclude, Follow []*regexp.Regexp
	// Rules send listed pages to named handlers; see Rule.
	Rules []Rule
	// MaxDepth levels of index are followed (DefaultDepth unless DepthSet
	// and not negative); PerAuthority sitemaps are read from one
	// authority (DefaultPerAuthority when 0 or less).
	MaxDepth     int
	DepthSet     bool
	PerAuthority int
	// Scope is which URLs a sitemap may list.
	Scope sitemap.Scope
}

// Rule maps sitemap URLs to a named handler, as Scrapy's sitemap_rules
// do: the first rule whose Pattern matches a listed page gives its
// Callback.
type Rule struct {
	Pattern  *regexp.Regexp
	Callback string
}

// Defaults applies the default limits where the options left none.
func (c *Config) Defaults() {
	if !c.DepthSet || c.MaxDepth < 0 {
		c.MaxDepth = DefaultDepth
	}
	if c.PerAuthority <= 0 {
		c.PerAuthority = DefaultPerAuthority
	}
}

// Refuses returns why the filters (Since, Include, Exclude) refuse a
// listed entry, or "" when they keep it. The inventory applies the same
// filters.
func (c *Config) Refuses(e sitemap.Entry) string {
	if !c.Since.IsZero() && !e.LastMod.IsZero() && e.LastMod.Before(c.Since) {
		return fmt.Sprintf("lastmod %s is before %s", e.LastModRaw, c.Since.Format("2006-01-02T15:04:05Z07:00"))
	}
	for _, re := range c.Exclude {
		if re.MatchString(e.Loc) {
			return "matches sitemap exclude pattern " + re.String()
		}
	}
	if len(c.Include) > 0 && !matchAny(c.Include, e.Loc) {
		return "matches no sitemap include pattern"
	}
	return ""
}

// Follows reports whether a sitemap that robots.txt or an index lists is
// read under the Follow patterns (always, without any).
func (c *Config) Follows(sitemapURL string) bool {
	return len(c.Follow) == 0 || matchAny(c.Follow, sitemapURL)
}

// callback returns the handler a listed page goes to, and false when
// rules are set and none matches.
func (c *Config) callback(loc string) (string, bool) {
	if len(c.Rules) == 0 {
		return "", true
	}
	for _, rule := range c.Rules {
		if rule.Pattern.MatchString(loc) {
			return rule.Callback, true
		}
	}
	return "", false
}

// entryMeta is the Meta a listed page carries to its callbacks.
func entryMeta(sitemapURL string, e sitemap.Entry) map[string]string {
	meta := map[string]string{MetaSitemap: sitemapURL}
	if e.LastModRaw != "" {
		meta[MetaLastMod] = e.LastModRaw
	}
	if e.ChangeFreq != "" {
		meta[MetaChangeFreq] = e.ChangeFreq
	}
	if p := FormatPriority(e); p != "" {
		meta[MetaPriority] = p
	}
	return meta
}

// FormatPriority writes a priority with at least one decimal, as sitemaps
// write them ("1.0", "0.5", "0.85"); "" when absent.
func FormatPriority(e sitemap.Entry) string {
	if !e.HasPriority {
		return ""
	}
	s := strconv.FormatFloat(e.Priority, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func matchAny(patterns []*regexp.Regexp, s string) bool {
	for _, re := range patterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

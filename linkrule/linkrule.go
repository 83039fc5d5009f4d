// Package linkrule holds heed's link-following rules, Scrapy's CrawlSpider
// rules with their LinkExtractor: which links of a page a rule admits, and
// which callback parses the pages they lead to.
//
// The model: a Set is an ordered list of rules. Links reads the links of
// an HTML document (a[href] and area[href], as Scrapy's LinkExtractor
// does by default), each once, with the rules whose region (Restrict) it
// was found in; Choose gives a link, once resolved,
// to the first of those rules that admits it. A link no rule takes is
// still returned (with no rule), so that the caller accounts for it:
// the crawler follows it with the no-rule mark and the scope check writes
// its one skip-log record.
//
// The contract: a rule admits a link when it matches at least one Allow
// pattern (any link when Allow is empty), no Deny pattern, lies on a host
// in Domains (when given) and was found inside Restrict (when given).
// Patterns are matched against the absolute URL, fragment dropped; a nil
// pattern matches nothing. The package decides; it does not resolve,
// fetch or record: resolution is htmlpage's and the wiring to callbacks
// is crawler.Handler.FollowRules'. Its limits: a link is known by its href
// as written, so one URL written two ways is two links until the
// frontier's dedup.
package linkrule

import (
	"net/url"
	"regexp"

	"github.com/PuerkitoBio/goquery"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
)

// Rule is one link-following rule:
//
//	c.FollowRules(
//		crawler.LinkRule{Allow: []*regexp.Regexp{regexp.MustCompile(`/product/\d+$`)}, Callback: "product"},
//		crawler.LinkRule{Allow: []*regexp.Regexp{regexp.MustCompile(`/category/`)}}, // followed, parsed by these rules again
//	)
//
// (crawler.LinkRule is this type.)
type Rule struct {
	// Allow and Deny are URL patterns: a link must match one of Allow
	// (when there are any) and none of Deny.
	Allow []*regexp.Regexp
	Deny  []*regexp.Regexp
	// Domains, when not empty, admits only links to these domains and
	// their subdomains, as the crawl's allowed domains do
	// (middleware.InDomains).
	Domains []string
	// Restrict, when not empty, is a CSS selector: only links inside the
	// elements it matches are this rule's (Scrapy's restrict_css).
	Restrict string
	// Callback names the handler that parses the pages the rule's links
	// lead to; empty is the default handler.
	Callback string
	// Options are applied to every request the rule makes
	// (crawler.WithPriority, WithMeta, WithHeader ...).
	Options []func(*frontier.Request)
}

// Admits reports whether the rule admits the absolute link u.
func (r *Rule) Admits(u string) bool {
	for _, p := range r.Deny {
		if p != nil && p.MatchString(u) {
			return false
		}
	}
	if len(r.Domains) > 0 {
		pu, err := url.Parse(u)
		if err != nil || !middleware.InDomains(pu.Hostname(), r.Domains) {
			return false
		}
	}
	if len(r.Allow) == 0 {
		return true
	}
	for _, p := range r.Allow {
		if p != nil && p.MatchString(u) {
			return true
		}
	}
	return false
}

// Selector is what rules extract links from, as Scrapy's LinkExtractor
// does by default.
const Selector = "a[href], area[href]"

// Set is an ordered list of rules: a link goes to the first rule that
// admits it.
type Set []Rule

// Link is one link of a page as written (Href), with the rules of its
// Set whose region it was found in.
type Link struct {
	Href  string
	rules []int
}

// Links returns the links of doc, each href once, with the rules that may
// take it: every rule without Restrict, and the rules whose Restrict
// region holds it. They come in the order the rules find them: the first
// rule's links in document order, then the links the next rule adds, and
// last the links outside every rule's region, with no rule.
func (s Set) Links(doc *goquery.Document) []Link {
	var links []Link
	seen := map[string]int{}
	add := func(i int, sel *goquery.Selection) {
		sel.Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			k, ok := seen[href]
			if !ok {
				k = len(links)
				seen[href] = k
				links = append(links, Link{Href: href})
			}
			if i >= 0 {
				links[k].rules = append(links[k].rules, i)
			}
		})
	}
	all := doc.Find(Selector)
	for i := range s {
		if s[i].Restrict != "" {
			add(i, doc.Find(s[i].Restrict).Find(Selector))
		} else {
			add(i, all)
		}
	}
	add(-1, all)
	return links
}

// Choose returns the first rule of s that may take l and admits abs, l
// resolved against its page; nil when none does.
func (s Set) Choose(l Link, abs string) *Rule {
	chosen := -1
	for _, i := range l.rules {
		if (chosen < 0 || i < chosen) && s[i].Admits(abs) {
			chosen = i
		}
	}
	if chosen < 0 {
		return nil
	}
	return &s[chosen]
}

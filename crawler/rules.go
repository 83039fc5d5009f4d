package crawler

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/heedcrawl/heed/middleware"
)

// LinkRule is one link-following rule, as a rule of Scrapy's CrawlSpider
// with its LinkExtractor: which links of a page it admits, and which
// callback parses the pages they lead to.
//
//	c.FollowRules(
//		crawler.LinkRule{Allow: []*regexp.Regexp{regexp.MustCompile(`/product/\d+$`)}, Callback: "product"},
//		crawler.LinkRule{Allow: []*regexp.Regexp{regexp.MustCompile(`/category/`)}}, // followed, parsed by these rules again
//	)
//
// A rule admits a link when it matches at least one Allow pattern (any
// link when Allow is empty), no Deny pattern, lies on a host in Domains
// (when given) and was found inside Restrict (when given). Patterns are
// matched against the absolute URL, fragment dropped.
type LinkRule struct {
	// Allow and Deny are URL patterns: a link must match one of Allow
	// (when there are any) and none of Deny.
	Allow []*regexp.Regexp
	Deny  []*regexp.Regexp
	// Domains, when not empty, admits only links to these domains and
	// their subdomains.
	Domains []string
	// Restrict, when not empty, is a CSS selector: only links inside the
	// elements it matches are this rule's (Scrapy's restrict_css).
	Restrict string
	// Callback names the handler that parses the pages the rule's links
	// lead to; empty is the default handler.
	Callback string
	// Options are applied to every request the rule makes (WithPriority,
	// WithMeta, WithHeader ...).
	Options []RequestOption
}

// admits reports whether the rule admits the absolute link u.
func (lr *LinkRule) admits(u string) bool {
	for _, re := range lr.Deny {
		if re.MatchString(u) {
			return false
		}
	}
	if len(lr.Domains) > 0 {
		pu, err := url.Parse(u)
		if err != nil || !inDomains(pu.Hostname(), lr.Domains) {
			return false
		}
	}
	if len(lr.Allow) == 0 {
		return true
	}
	for _, re := range lr.Allow {
		if re.MatchString(u) {
			return true
		}
	}
	return false
}

func inDomains(host string, domains []string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// linkSelector is what a rule extracts links from, as Scrapy's
// LinkExtractor does by default.
const linkSelector = "a[href], area[href]"

// FollowRules makes the default handler follow links by rules; see
// Handler.FollowRules.
func (c *Crawler) FollowRules(rules ...LinkRule) { c.Handler.FollowRules(rules...) }

// FollowRules makes the handler extract the links of its HTML responses
// (a[href] and area[href]) and follow each with the first rule that admits
// it, with that rule's callback and options. A link no rule admits is not
// fetched and is written to the skip log once, with reason no-rule, so the
// rules' effect can be read there like any other exclusion. Links that are
// not http(s) (mailto:, javascript:) are ignored and counted, as Follow
// does.
func (h *Handler) FollowRules(rules ...LinkRule) {
	rules = append([]LinkRule(nil), rules...)
	name := h.name
	if name == "" {
		name = "the default handler"
	} else {
		name = "handler " + name
	}
	h.OnResponse(func(r *Response) {
		if !isHTML(r) {
			return
		}
		doc := r.Doc()
		// Restricted rules see only their regions: each link remembers
		// which rules may take it.
		type link struct {
			href  string
			rules []int
		}
		var links []link
		seen := map[string]int{}
		add := func(i int, s *goquery.Selection) {
			s.Each(func(_ int, a *goquery.Selection) {
				href, _ := a.Attr("href")
				if k, ok := seen[href]; ok {
					links[k].rules = append(links[k].rules, i)
					return
				}
				seen[href] = len(links)
				links = append(links, link{href, []int{i}})
			})
		}
		all := doc.Find(linkSelector)
		for i := range rules {
			if rules[i].Restrict != "" {
				add(i, doc.Find(rules[i].Restrict).Find(linkSelector))
			} else {
				add(i, all)
			}
		}
		// Links outside every rule's region are no rule's either.
		add(-1, all)
		for _, l := range links {
			abs := r.AbsoluteURL(l.href)
			if abs == "" {
				r.Follow(l.href) // counted as ignored
				continue
			}
			chosen := -1
			for _, i := range l.rules {
				if i >= 0 && rules[i].admits(abs) && (chosen < 0 || i < chosen) {
					chosen = i
				}
			}
			if chosen < 0 {
				r.Follow(abs, WithMeta(middleware.MetaNoRule, "no link rule of "+name+" admits it"))
				continue
			}
			opts := append([]RequestOption{WithCallback(rules[chosen].Callback)}, rules[chosen].Options...)
			r.Follow(abs, opts...)
		}
	})
}

// isHTML reports whether a response is an HTML page.
func isHTML(r *Response) bool {
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	if ct == "" {
		return strings.Contains(strings.ToLower(string(r.Body[:min(len(r.Body), 512)])), "<html")
	}
	return strings.Contains(ct, "html")
}

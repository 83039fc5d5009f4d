package crawler

import (
	"strings"

	"github.com/heedcrawl/heed/linkrule"
	"github.com/heedcrawl/heed/middleware"
)

// The two ways a handler follows the links of its pages: every link its
// selectors match (FollowLinks), or the links its rules admit
// (FollowRules, package linkrule).

// FollowLinks makes the default handler follow every link matched by the
// selectors (default "a[href]"), reading the href attribute, or src for
// frames. With the default selector, a page that no other HTML or XML
// callback reads (and whose DOM no OnResponse callback asked for) has its
// links read by a streaming tokenizer instead of a DOM: the same links, in
// source order (see htmlpage.Scan for the few documents that still get a
// DOM).
func (c *Crawler) FollowLinks(selectors ...string) {
	if len(selectors) == 0 {
		selectors = []string{"a[href]"}
	}
	for _, sel := range selectors {
		cb := htmlCallback{selector: sel, fn: followLink, links: sel == "a[href]"}
		c.Handler.mu.Lock()
		c.Handler.html = append(c.Handler.html, cb)
		c.Handler.mu.Unlock()
	}
}

// followLink is FollowLinks' callback on a DOM element.
func followLink(e *HTMLElement) {
	link := e.Attr("href")
	if link == "" {
		link = e.Attr("src")
	}
	e.Follow(link)
}

// LinkRule is one link-following rule, as a rule of Scrapy's CrawlSpider
// with its LinkExtractor: which links of a page it admits (Allow, Deny,
// Domains, Restrict), and which callback parses the pages they lead to.
// Package linkrule has the model and the matching.
type LinkRule = linkrule.Rule

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
	set := append(linkrule.Set(nil), rules...)
	name := "the default handler"
	if h.name != "" {
		name = "handler " + h.name
	}
	h.OnResponse(func(r *Response) {
		if !isHTML(r) {
			return
		}
		for _, l := range set.Links(r.Doc()) {
			abs := r.AbsoluteURL(l.Href)
			if abs == "" {
				r.Follow(l.Href) // counted as ignored
				continue
			}
			rule := set.Choose(l, abs)
			if rule == nil {
				r.Follow(abs, WithMeta(middleware.MetaNoRule, "no link rule of "+name+" admits it"))
				continue
			}
			r.Follow(abs, append([]RequestOption{WithCallback(rule.Callback)}, rule.Options...)...)
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

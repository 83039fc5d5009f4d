package crawler

import (
	"strings"

	"github.com/heedcrawl/heed/linkrule"
	"github.com/heedcrawl/heed/middleware"
)

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

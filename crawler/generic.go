package crawler

import (
	"strings"
	"time"
)

// Page is the item heed's generic site spider emits for every page it
// downloads (see EmitPages).
type Page struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Title    string `json:"title,omitempty"`
	Depth    int    `json:"depth"`
	Referrer string `json:"referrer,omitempty"`
	Bytes    int    `json:"bytes"`
	// Truncated reports a body cut at the body limit (WithMaxBodySize):
	// Bytes, Title and Links are of its first bytes only.
	Truncated bool      `json:"truncated,omitempty"`
	Links     int       `json:"links"`
	FetchedAt time.Time `json:"fetched_at"`
	// Robots and Usage are what the site said about the page: its page
	// directives and its AI usage preferences (see PageSignals).
	Robots []string          `json:"robots,omitempty"`
	Usage  map[string]string `json:"usage,omitempty"`
}

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

// EmitPages makes the default handler emit a Page item for every HTML page
// downloaded: heed's command line uses it to write an inventory of what it
// fetched.
func (c *Crawler) EmitPages() {
	c.OnResponse(func(r *Response) {
		if !strings.Contains(strings.ToLower(r.Header.Get("Content-Type")), "html") {
			return
		}
		doc := r.Doc()
		sig := r.Signals()
		r.Emit(Page{
			Robots:    sig.Robots,
			Usage:     sig.Usage,
			URL:       r.Request.URL,
			Status:    r.StatusCode,
			Title:     strings.TrimSpace(doc.Find("title").First().Text()),
			Depth:     r.Request.Depth,
			Referrer:  r.Request.Referrer,
			Bytes:     len(r.Body),
			Truncated: r.Truncated,
			Links:     doc.Find("a[href]").Length(),
			FetchedAt: r.crawl.cfg.now(),
		})
	})
}

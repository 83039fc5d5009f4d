// Package pages is heed's generic site spider's item: a Page for every
// HTML page a crawl downloads, with what a site inventory wants of it
// (URL, status, title, depth, referrer, size, link count, what the site
// said about it). `heed crawl` writes these when it is given a feed; any
// spider can emit them beside its own items.
//
// The model: Emit registers one OnResponse callback on a crawler or a
// named handler; for every response whose Content-Type says HTML it reads
// the page's DOM (Response.Doc, under the crawl's element limit and parse
// budget) and emits one Page through the crawl's pipelines. The contract:
// one Page per HTML response the handler parses, none for other content
// types; FetchedAt is the crawl's clock (crawler.WithClock). Its limits:
// Title and Links are read from the part of the page the DOM holds, so a
// page cut at the body limit (Truncated) or the element limit counts only
// that part. The package reads responses; following links is the
// spider's business (crawler.FollowLinks), and so is where the items go.
package pages

import (
	"strings"
	"time"

	"github.com/heedcrawl/heed/crawler"
)

// Page is the item heed's generic site spider emits for every page it
// downloads (see Emit).
type Page struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Title    string `json:"title,omitempty"`
	Depth    int    `json:"depth"`
	Referrer string `json:"referrer,omitempty"`
	Bytes    int    `json:"bytes"`
	// Truncated reports a body cut at the body limit
	// (crawler.WithMaxBodySize): Bytes, Title and Links are of its first
	// bytes only.
	Truncated bool      `json:"truncated,omitempty"`
	Links     int       `json:"links"`
	FetchedAt time.Time `json:"fetched_at"`
	// Robots and Usage are what the site said about the page: its page
	// directives and its AI usage preferences (see crawler.PageSignals).
	Robots []string          `json:"robots,omitempty"`
	Usage  map[string]string `json:"usage,omitempty"`
}

// Handler is what Emit registers on: a *crawler.Crawler (its default
// handler) or a named *crawler.Handler.
type Handler interface {
	OnResponse(fn func(r *crawler.Response))
}

// Emit makes h emit a Page item for every HTML page it parses: heed's
// command line uses it on the default handler to write an inventory of
// what it fetched.
func Emit(h Handler) {
	h.OnResponse(func(r *crawler.Response) {
		if !strings.Contains(strings.ToLower(r.Header.Get("Content-Type")), "html") {
			return
		}
		r.Emit(Of(r))
	})
}

// Of returns the Page of the HTML response r.
func Of(r *crawler.Response) Page {
	doc := r.Doc()
	sig := r.Signals()
	return Page{
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
		FetchedAt: r.Now(),
	}
}

package crawler

import "github.com/heedcrawl/heed/htmlpage"

// Memory for HTML is bounded by what a page may cost, not by what it
// holds (package htmlpage has the model). Three limits keep a page's cost
// bounded whatever it holds:
//
//   - the tree of a page holds at most maxElements elements: past them
//     the rest of the body is not parsed (the page is counted in
//     PagesCut, and logged);
//   - the trees being built or used at once hold at most twice that many
//     elements between them: a worker that would go over waits for
//     another page's callbacks to finish (pages of a few thousand
//     elements never wait);
//   - a page gives the frontier at most maxLinks links (counted in
//     LinksCapped, and logged), so its buffered links are bounded too.

const (
	// DefaultMaxPageElements is the most HTML elements heed builds into
	// one page's tree.
	DefaultMaxPageElements = htmlpage.DefaultMaxElements
	// DefaultMaxLinksPerPage is the most links one page may add to the
	// crawl.
	DefaultMaxLinksPerPage = 10_000
)

// WithMaxPageElements sets the most HTML elements heed parses into one
// page's tree (default DefaultMaxPageElements): the part of a page past
// them is not parsed, so neither its elements nor its links reach the
// callbacks; the page is counted in Snapshot.PagesCut and logged. The
// trees in use at once hold at most twice as many elements between them.
func WithMaxPageElements(n int) Option { return func(c *config) { c.maxElements = n } }

// WithMaxLinksPerPage sets the most links one page may add to the crawl
// through Follow (default DefaultMaxLinksPerPage); the page's other links
// are counted in Snapshot.LinksCapped and logged, not followed.
func WithMaxLinksPerPage(n int) Option { return func(c *config) { c.maxLinks = n } }

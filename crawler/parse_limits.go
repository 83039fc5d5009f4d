package crawler

import "github.com/heedcrawl/heed/htmlpage"

// What one page may cost is bounded whatever it holds (package htmlpage
// has the model): the elements of its tree, the elements of the trees in
// use at once (twice that), and the links it gives the frontier.

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

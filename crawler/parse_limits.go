package crawler

import (
	"bytes"
	"sync"

	"golang.org/x/net/html"
)

// Memory for HTML is bounded by what a page may cost, not by what it
// holds. A body is capped in bytes (WithMaxBodySize), but a tree is not
// proportional to bytes: ten MiB of <a href=/x>a</a> is 655,360 elements,
// half a gigabyte of nodes and callbacks. Three limits keep a page's cost
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
	DefaultMaxPageElements = 50_000
	// DefaultMaxLinksPerPage is the most links one page may add to the
	// crawl.
	DefaultMaxLinksPerPage = 10_000
	// smallParse is the estimated element count under which a page does
	// not take from the parse budget.
	smallParse = 4_000
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

// htmlToParse returns the part of body that a tree of at most max
// elements holds, whether it is all of body, and an estimate of the
// elements it holds (for the parse budget). Counting '<' bounds the
// element count from above at the cost of one scan; only a body with
// more '<' than max is tokenized to find where to cut.
func htmlToParse(body []byte, max int) (part []byte, whole bool, elements int) {
	lt := bytes.Count(body, []byte{'<'})
	if max <= 0 || lt <= max {
		return body, true, lt
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	n, off := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return body, true, n
		}
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			if n == max {
				return body[:off], false, n // cut before the element past the limit
			}
			n++
		}
		off += len(z.Raw())
	}
}

// parseBudget bounds the elements of the trees in use at once.
type parseBudget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	free  int
	total int
}

func newParseBudget(total int) *parseBudget {
	b := &parseBudget{free: total, total: total}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire takes n elements of the budget, waiting while they are not
// free, and returns the function that gives them back. A small n, or no
// budget, takes nothing.
func (b *parseBudget) acquire(n int) (release func()) {
	if b == nil || n < smallParse {
		return func() {}
	}
	n = min(n, b.total)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.free += n
			b.mu.Unlock()
			b.cond.Broadcast()
		})
	}
}

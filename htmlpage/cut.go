package htmlpage

import (
	"bytes"

	"golang.org/x/net/html"
)

// DefaultMaxElements is the most HTML elements heed builds into one
// page's tree unless told otherwise.
const DefaultMaxElements = 50_000

// Cut returns the part of body that a tree of at most max
// elements holds, whether it is all of body, and an estimate of the
// elements it holds (for a Budget). A max of 0 or less is no limit. Counting '<' bounds the
// element count from above at the cost of one scan; only a body with
// more '<' than max is tokenized to find where to cut.
func Cut(body []byte, max int) (part []byte, whole bool, elements int) {
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

package htmlpage

import (
	"bytes"
	"io"

	"golang.org/x/net/html"
)

// DefaultMaxElements is the most HTML elements heed builds into one
// page's tree unless told otherwise.
const DefaultMaxElements = 50_000

// Cut returns the part of body that a tree of at most max
// elements holds, whether it is all of body, and an estimate of the
// elements it holds (for a Budget). A max of 0 or less is no limit.
// Counting '<' bounds the element count from above at the cost of one
// scan; only a body with more '<' than max is read to find where to cut:
// by the lexer (lex.go), in place, which finds the start tags the
// tokenizer finds, or for a body with NUL bytes by the tokenizer, with
// the buffer limit Scan and pagerobots.ScanHTML use (1 MiB): a body
// with a token longer than that is cut before that token.
func Cut(body []byte, max int) (part []byte, whole bool, elements int) {
	lt := bytes.Count(body, []byte{'<'})
	if max <= 0 || lt <= max {
		return body, true, lt
	}
	if bytes.IndexByte(body, 0) < 0 {
		n := 0
		for l := (lexer{b: body}); l.next(); n++ {
			if n == max {
				return body[:l.tag.start], false, n // cut before the element past the limit
			}
		}
		return body, true, n
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(lexMaxBody)
	n, off := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() == io.EOF {
				return body, true, n
			}
			return body[:off], false, n // cut before the token over the buffer limit
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

package crawler

import (
	"bytes"
	"io"

	"golang.org/x/net/html"
)

// A page whose only HTML consumers are FollowLinks("a[href]") callbacks
// needs its links, not its tree. scanLinks reads them with the HTML
// tokenizer, without building the DOM that goquery needs: the work the
// tree builder does (and most of the garbage) is saved on every such page.
//
// It must find the links the DOM would: the a elements with an href
// attribute, and the href of the first base element. The token stream and
// the tree differ where the tree builder drops or rewrites elements or
// attributes, or changes how the tokenizer reads raw text: inside select
// (a and base start tags are ignored there), framesets, foreign content
// (svg and math: xlink:href becomes href, and title and style are not raw
// text there), NUL bytes; and for base, a second base element, which the
// tree builder may move before the first (foster parenting in tables).
// scanLinks gives up (ok false) at the first of those, and the caller
// builds the DOM as before. Elsewhere the links are the same; they come
// in source order, each element once, where the DOM may move one (foster
// parenting) or clone one (misnested formatting tags: the clone is then
// a duplicate URL, counted as such). FuzzScanLinks checks the agreement.

// scannedLink is one a[href] element: its href, and its src (which
// FollowLinks follows when href is empty).
type scannedLink struct {
	href, src string
}

// scanLinks returns the a[href] links of an HTML body and the href of its
// first base[href] element, or ok false when only the DOM can tell.
func scanLinks(body []byte) (links []scannedLink, base string, hasBase, ok bool) {
	if bytes.IndexByte(body, 0) >= 0 {
		return nil, "", false, false
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return links, base, hasBase, z.Err() == io.EOF
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			switch string(name) {
			case "a":
				var l scannedLink
				var hasHref, hasSrc bool
				for more {
					var k, v []byte
					k, v, more = z.TagAttr()
					switch string(k) {
					case "href":
						if !hasHref {
							l.href, hasHref = string(v), true
						}
					case "src":
						if !hasSrc {
							l.src, hasSrc = string(v), true
						}
					}
				}
				if hasHref {
					links = append(links, l)
				}
			case "base":
				for more {
					var k, v []byte
					k, v, more = z.TagAttr()
					if string(k) == "href" {
						if hasBase {
							return nil, "", false, false
						}
						base, hasBase = string(v), true
						break
					}
				}
			case "select", "frameset", "svg", "math":
				return nil, "", false, false
			}
		}
	}
}

package htmlpage

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"

	"github.com/heedcrawl/heed/pagerobots"
)

// Scan reads with the HTML tokenizer, in one pass, what a page whose
// only HTML consumer follows a[href] links needs, without building the
// tree goquery needs: the work the tree builder does (and most of the
// garbage) is saved on every such page.
//
// It must find the links the DOM would: the a elements with an href
// attribute, and the href of the first base element. The token stream and
// the tree differ where the tree builder drops or rewrites elements or
// attributes, or changes how the tokenizer reads raw text: inside select
// (a and base start tags are ignored there), framesets, foreign content
// (svg and math: xlink:href becomes href, and title and style are not raw
// text there), NUL bytes; and for base, a second base element, which the
// tree builder may move before the first (foster parenting in tables).
// Scan gives up on links (LinksOK false) at the first of those, and the
// caller builds the DOM. Elsewhere the links are the same; they come in
// source order, each element once, where the DOM may move one (foster
// parenting) or clone one (misnested formatting tags: the clone is then
// a duplicate URL). FuzzScanLinks checks the agreement.

// Link is one a[href] element: its href, and its src (which FollowLinks
// follows when href is empty).
type Link struct {
	Href, Src string
}

// Page is what one tokenizer pass reads from an HTML page: its a[href]
// links and first base href (when LinksOK), and its meta robots
// directives, exactly as pagerobots.ScanHTML reads them (the same
// tokenizer, buffer limit, lines and statement limit), so that a page is
// tokenized once for both.
type Page struct {
	// Links are the a[href] elements in source order; Base is the href
	// of the first base element, HasBase whether there is one.
	Links   []Link
	Base    string
	HasBase bool
	// LinksOK says Links and Base are what the DOM would give; when it
	// is false they are not to be used.
	LinksOK bool
	// Meta are the page's meta robots directives for the token.
	Meta pagerobots.Directives
}

// Scan reads body's links and the meta robots directives for token.
// It reads links only from a page whose DOM would hold it whole (see
// Cut), and never more than maxElements of them: memory stays bounded as
// the DOM's is.
func Scan(body []byte, token string, maxElements int) Page {
	_, whole, _ := Cut(body, maxElements)
	ps := Page{LinksOK: whole && bytes.IndexByte(body, 0) < 0}
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(1 << 20) // as pagerobots.ScanHTML
	// A tag's line is 1 + the newlines before it, as pagerobots.ScanHTML
	// counts them. Only meta tags need it, so the newlines are counted
	// when one is met, from where the last count stopped: the tokens'
	// raw text covers the body in order, so the offset of a token is
	// the length of the raw text before it.
	line, counted, pos, statements := 1, 0, 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				ps.LinksOK = false
			}
			return ps
		}
		start := pos
		pos += len(z.Raw())
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		switch string(name) {
		case "a":
			if !ps.LinksOK {
				continue
			}
			var l Link
			var hasHref, hasSrc bool
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "href":
					if !hasHref {
						l.Href, hasHref = string(v), true
					}
				case "src":
					if !hasSrc {
						l.Src, hasSrc = string(v), true
					}
				}
			}
			if hasHref {
				if maxElements > 0 && len(ps.Links) >= maxElements {
					ps.Links, ps.LinksOK = nil, false
					continue
				}
				if ps.Links == nil {
					ps.Links = make([]Link, 0, 16) // most pages have a few links
				}
				ps.Links = append(ps.Links, l)
			}
		case "base":
			for ps.LinksOK && more {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "href" {
					if ps.HasBase {
						ps.LinksOK = false
					}
					ps.Base, ps.HasBase = string(v), true
					break
				}
			}
		case "meta":
			if statements >= pagerobots.MaxStatements || !more {
				continue
			}
			var metaName, content string
			hasContent := false
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "name":
					metaName = string(v)
				case "content":
					content, hasContent = string(v), true
				}
			}
			if !hasContent {
				continue
			}
			start = min(start, len(body))
			line += bytes.Count(body[counted:start], []byte{'\n'})
			counted = start
			d := pagerobots.ParseMeta(token, metaName, content, line)
			if len(d.List) == 0 && !strings.EqualFold(strings.TrimSpace(metaName), "robots") {
				continue
			}
			ps.Meta.Add(d)
			statements++
		case "select", "frameset", "svg", "math":
			ps.LinksOK = false
		}
	}
}

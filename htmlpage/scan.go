package htmlpage

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"

	"github.com/heedcrawl/heed/pagerobots"
)

// Scan reads, in one pass of the lexer (lex.go), what a page whose
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
// Cut): past maxElements start tags (counted as it reads, in the same
// pass) it drops them, so that memory stays bounded as the DOM's is.
// Most bodies are read by the lexer, in place; a body with NUL bytes or
// of a MiB or more by the tokenizer (see lexer).
func Scan(body []byte, token string, maxElements int) Page {
	nul := bytes.IndexByte(body, 0) >= 0
	ps := Page{LinksOK: !nul}
	s := pageScan{page: &ps, body: body, token: token, max: maxElements, line: 1}
	if nul || len(body) >= lexMaxBody {
		if !scanTokens(body, s.tag) {
			ps.LinksOK = false
		}
		return ps
	}
	l := lexer{b: body}
	for l.next() {
		s.tag(&l.tag)
	}
	return ps
}

// pageScan reads one page's start tags into its Page.
type pageScan struct {
	page  *Page
	body  []byte
	token string
	max   int
	// line is the line of the body at offset counted: a tag's line is 1
	// + the newlines before it, as pagerobots.ScanHTML counts them. Only
	// meta tags need it, so newlines are counted when one is met, from
	// where the last count stopped.
	line, counted int
	statements    int
	// tags counts the start tags read: past max, the DOM would not hold
	// the page whole (Cut would cut it), and the links are dropped.
	tags int
}

func (s *pageScan) tag(t *startTag) {
	ps := s.page
	s.tags++
	if s.max > 0 && s.tags > s.max && (ps.LinksOK || ps.Links != nil || ps.HasBase) {
		ps.Links, ps.Base, ps.HasBase, ps.LinksOK = nil, "", false, false
	}
	switch name := t.name; {
	case tagIs(name, "a"):
		if !ps.LinksOK {
			return
		}
		var l Link
		var hasHref, hasSrc bool
		for _, a := range t.attrs[:t.n] {
			switch {
			case !hasHref && keyIs(a.key, "href"):
				l.Href, hasHref = a.value(), true
			case !hasSrc && keyIs(a.key, "src"):
				l.Src, hasSrc = a.value(), true
			}
		}
		if !hasHref {
			return
		}
		if ps.Links == nil {
			ps.Links = make([]Link, 0, 16) // most pages have a few links
		}
		ps.Links = append(ps.Links, l)
	case tagIs(name, "base"):
		if !ps.LinksOK {
			return
		}
		for _, a := range t.attrs[:t.n] {
			if keyIs(a.key, "href") {
				if ps.HasBase {
					ps.LinksOK = false
				}
				ps.Base, ps.HasBase = a.value(), true
				return
			}
		}
	case tagIs(name, "meta"):
		if s.statements >= pagerobots.MaxStatements {
			return
		}
		var metaName, content string
		hasContent := false
		for _, a := range t.attrs[:t.n] {
			switch {
			case keyIs(a.key, "name"):
				metaName = a.value()
			case keyIs(a.key, "content"):
				content, hasContent = a.value(), true
			}
		}
		if !hasContent {
			return
		}
		start := min(t.start, len(s.body))
		s.line += bytes.Count(s.body[s.counted:start], []byte{'\n'})
		s.counted = start
		d := pagerobots.ParseMeta(s.token, metaName, content, s.line)
		if len(d.List) == 0 && !strings.EqualFold(strings.TrimSpace(metaName), "robots") {
			return
		}
		ps.Meta.Add(d)
		s.statements++
	case tagIs(name, "select"), tagIs(name, "frameset"), tagIs(name, "svg"), tagIs(name, "math"):
		ps.LinksOK = false
	}
}

// scanTokens reads body's start tags with the tokenizer, as the lexer
// does, and reports false if the tokenizer stopped before the end (its
// buffer limit).
func scanTokens(body []byte, fn func(*startTag)) bool {
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(1 << 20) // as pagerobots.ScanHTML
	// The tokens' raw text covers the body in order, so the offset of a
	// token is the length of the raw text before it.
	var t startTag
	pos := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return z.Err() == io.EOF
		}
		t.start = pos
		pos += len(z.Raw())
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		t.name, t.n = name, 0
		for more && attrsWanted(name) {
			var k, v []byte
			k, v, more = z.TagAttr()
			if keyWanted(k) {
				t.add(tagAttr{key: k, val: v})
			}
		}
		fn(&t)
	}
}

package htmlpage

import (
	"bytes"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
)

// The lexer finds a page's start tags where golang.org/x/net/html's
// Tokenizer does, without its costs: the tokenizer copies the body into
// buffers of its own, reads it a byte at a time through a method call,
// and allocates the name and every attribute of every tag it returns.
// The lexer works on the body in place, skips text with bytes.IndexByte
// and reads attributes only for the tags Scan uses (a, base, meta).
//
// It follows the tokenizer's states one for one: text, start and end tags
// with their attributes (quotes decide where a tag ends), comments with
// the tokenizer's endings ("-->", "--!>", "<!-->"), doctypes and other
// markup declarations, processing instructions, and the raw text after
// iframe, noembed, noframes, noscript, plaintext, script (with its escape
// states), style, textarea, title and xmp start tags. A tag cut by the end
// of the body is not a tag, as for the tokenizer. FuzzLexAgreesWithTokenizer
// checks the two against each other.
//
// Its limits, where the caller uses the tokenizer instead (scanTokens):
// a body with NUL bytes (the tokenizer replaces them inside names and
// values) and a body of a MiB or more (where the tokenizer's buffer limit
// may stop it). A wanted attribute value with a carriage return or a
// character reference is rewritten as the tokenizer's TagAttr does
// (attrValue): carriage returns become newlines, then references are
// unescaped by html.UnescapeString. Only where a value holds a named
// reference that the tokenizer reads otherwise in an attribute (one not
// ended by ';', or one that UnescapeString would read by a prefix) does
// the tokenizer read that tag's attributes from the tag's own bytes.

// lexMaxBody is the body size from which Scan uses the tokenizer: its
// buffer limit (1 MiB, as pagerobots.ScanHTML sets it) can only be reached
// by a token that long.
const lexMaxBody = 1 << 20

// tagAttr is one attribute of a start tag: its key as written (compare
// with keyIs) and its value as the tokenizer's TagAttr gives it: val, or
// str when the value had to be rewritten (esc).
type tagAttr struct {
	key, val []byte
	str      string
	esc      bool
}

// value returns the attribute's value as a string.
func (a *tagAttr) value() string {
	if a.esc {
		return a.str
	}
	return string(a.val)
}

// startTag is a start tag (or self-closing tag) met by a lexer.
type startTag struct {
	// start is the offset of the tag's '<' in the body.
	start int
	// name is the tag's name as written (the tokenizer's is in lower
	// case): compare it with tagIs.
	name []byte
	// attrs[:n] are the first href, src, name and content attributes, in
	// the order written, for a, base and meta tags only.
	attrs [4]tagAttr
	n     int
	// tokenize says a wanted value holds a reference that only the
	// tokenizer reads right (see attrValue).
	tokenize bool
}

// add appends a wanted attribute.
func (t *startTag) add(a tagAttr) {
	if t.n < len(t.attrs) {
		t.attrs[t.n] = a
		t.n++
	}
}

// tagIs reports whether name is want (lower case), ignoring ASCII case
// as the tokenizer does.
func tagIs(name []byte, want string) bool { return keyIs(name, want) }

// attrsWanted reports whether Scan reads the attributes of a tag.
func attrsWanted(name []byte) bool {
	return tagIs(name, "a") || tagIs(name, "base") || tagIs(name, "meta")
}

// keyWanted reports whether Scan reads the attribute with key k (as
// written).
func keyWanted(k []byte) bool {
	return keyIs(k, "href") || keyIs(k, "src") || keyIs(k, "name") || keyIs(k, "content")
}

// keyIs reports whether k is want (lower case) in ASCII case-insensitive
// comparison, as the tokenizer lower-cases keys.
func keyIs(k []byte, want string) bool {
	if len(k) != len(want) {
		return false
	}
	for i := range k {
		c := k[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// lexer walks one body. Create it with its body; call next until it
// returns false.
type lexer struct {
	b   []byte
	i   int    // the next byte to read
	raw string // the raw text element whose content comes next, "" if none
	tag startTag
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// next moves to the next start tag and reports whether there is one.
// The tag (l.tag) is valid until the next call.
func (l *lexer) next() bool {
	b, n := l.b, len(l.b)
	for {
		if l.raw != "" {
			if !l.skipRaw() {
				return false
			}
		}
		j := bytes.IndexByte(b[l.i:], '<')
		if j < 0 {
			l.i = n
			return false
		}
		lt := l.i + j
		l.i = lt + 1
		if l.i >= n {
			return false
		}
		c := b[l.i]
		switch {
		case isLetter(c):
			if !l.startTag(lt) {
				return false
			}
			return true
		case c == '/':
			l.i++
			if l.i >= n {
				return false
			}
			switch c = b[l.i]; {
			case c == '>':
				l.i++
			case isLetter(c):
				if !l.readTag(false) {
					return false
				}
			default:
				if !l.untilCloseAngle() {
					return false
				}
			}
		case c == '!':
			l.i++
			if !l.markupDeclaration() {
				return false
			}
		case c == '?':
			if !l.untilCloseAngle() {
				return false
			}
		}
		// Anything else after '<' is text: the search goes on from it.
	}
}

// startTag reads the start tag whose '<' is at lt (l.i is on the first
// letter of its name).
func (l *lexer) startTag(lt int) bool {
	l.tag.start, l.tag.name, l.tag.n, l.tag.tokenize = lt, nil, 0, false
	if !l.readTag(true) {
		return false
	}
	l.raw = rawElement(l.tag.name)
	if l.tag.tokenize {
		l.tokenizeAttrs(l.b[lt:l.i])
	}
	return true
}

// rawElement returns name if the text after its start tag is raw text
// (read up to the element's end tag) for the tokenizer, "" otherwise.
func rawElement(name []byte) string {
	for _, r := range [...]string{"iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp"} {
		if tagIs(name, r) {
			return r
		}
	}
	return ""
}

// attrValue returns an attribute value holding a character reference or
// a carriage return as the tokenizer's TagAttr gives it: "\r\n" and "\r"
// become "\n", then references are unescaped with html.UnescapeString.
// That is the tokenizer's reading wherever every named reference ends in
// ';' and is read whole (sameInAttribute); otherwise ok is false and the
// tokenizer is to read the value.
func attrValue(v []byte) (s string, ok bool) {
	if bytes.IndexByte(v, '\r') >= 0 {
		out := make([]byte, 0, len(v))
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c == '\r' {
				c = '\n'
				if i+1 < len(v) && v[i+1] == '\n' {
					i++
				}
			}
			out = append(out, c)
		}
		v = out
	}
	for i := 0; ; {
		j := bytes.IndexByte(v[i:], '&')
		if j < 0 {
			break
		}
		i += j
		if !sameInAttribute(v[i:]) {
			return "", false
		}
		i++
	}
	if len(v) == 0 {
		return "", true
	}
	// UnescapeString copies a string holding '&' before it unescapes it
	// (one without is v, the copy made above), and keeps no reference to
	// it: it may read v in place.
	return html.UnescapeString(unsafe.String(&v[0], len(v))), true
}

// sameInAttribute reports whether the character reference at the start
// of s (its '&') reads the same in an attribute value, as the tokenizer
// reads it, as in text, as html.UnescapeString reads it. They differ only
// for a named reference: one not ended by ';' (in an attribute it stays
// as written before '='), and one ended by ';' that is no reference while
// a prefix of it is ("&ampx;": text reads "&x;", an attribute "&ampx;").
// Numeric references and a '&' with no name after it read the same.
func sameInAttribute(s []byte) bool {
	if len(s) < 2 || s[1] == '#' {
		return true
	}
	k := 1
	for k < len(s) && isAlnum(s[k]) {
		k++
	}
	if k == 1 {
		return true
	}
	if k == len(s) || s[k] != ';' {
		return false
	}
	ref := s[:k+1]
	switch string(ref) {
	case "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&nbsp;":
		return true
	}
	// A whole reference reads as its one or two characters; one read by a
	// prefix keeps the rest of its name and its ';' ("&ampx;" reads
	// "&x;"); one not read stays as written.
	u := html.UnescapeString(string(ref))
	return u == string(ref) || u == ";" || !strings.HasSuffix(u, ";")
}

func isAlnum(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9'
}

// tokenizeAttrs reads the wanted attributes of one whole start tag with
// the tokenizer. A start tag is read the same way wherever it stands in
// the text, so this gives the values the tokenizer would give in place.
func (l *lexer) tokenizeAttrs(raw []byte) {
	l.tag.n = 0
	z := html.NewTokenizer(bytes.NewReader(raw))
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return
	}
	_, more := z.TagName()
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if keyWanted(k) {
			// TagAttr's slices are its own copies: they stay valid.
			l.tag.add(tagAttr{key: k, val: v})
		}
	}
}

// readTag reads a tag from its name's first letter (l.i) to past its '>',
// as the tokenizer's readTag: the name, then attributes, each a key and
// an optional value, quoted or not. With start, it sets the tag's name
// and keeps its wanted attributes. It returns false at the end of the
// body (a tag not closed is no tag).
func (l *lexer) readTag(start bool) bool {
	b, n := l.b, len(l.b)
	// The name runs to white space, '/' or '>'.
	i, ns, ne := l.i+1, l.i, -1
	for ; i < n; i++ {
		c := b[i]
		if isSpace(c) {
			ne = i
			i++
			break
		}
		if c == '/' || c == '>' {
			ne = i
			break
		}
	}
	if ne < 0 {
		return false
	}
	keep := false
	if start {
		l.tag.name = b[ns:ne]
		keep = attrsWanted(l.tag.name)
	}
	i = skipSpace(b, i)
	for {
		if i >= n {
			return false
		}
		if b[i] == '>' {
			l.i = i + 1
			return true
		}
		// The key runs to white space, '/', '>' or a '=' that is not its
		// first character.
		ks := i
		for {
			if i >= n {
				return false
			}
			c := b[i]
			if c == '=' && i == ks {
				i++
				continue
			}
			if c == '=' || isSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		ke := i
		// The value: after optional white space, '=' and optional white
		// space, a quoted string or a run to white space or '>'. A '/'
		// right after the key is consumed, as the self-closing solidus.
		vs, ve := i, i
		i = skipSpace(b, i)
		if i >= n {
			return false
		}
		switch c := b[i]; c {
		case '/':
			i++
		case '=':
			i = skipSpace(b, i+1)
			if i >= n {
				return false
			}
			switch q := b[i]; q {
			case '>':
			case '"', '\'':
				k := bytes.IndexByte(b[i+1:], q)
				if k < 0 {
					return false
				}
				vs, ve = i+1, i+1+k
				i = ve + 1
			default:
				vs = i
				for i++; ; i++ {
					if i >= n {
						return false
					}
					if c := b[i]; isSpace(c) {
						ve = i
						i++
						break
					} else if c == '>' {
						ve = i
						break
					}
				}
			}
		}
		if keep && ke > ks {
			l.keep(b[ks:ke], b[vs:ve])
		}
		i = skipSpace(b, i)
	}
}

// keep records an attribute of the current tag if Scan reads its key
// and the tag has none by that key yet (the tokenizer drops repeated
// keys). A value with a character reference or a carriage return is
// rewritten as the tokenizer does (attrValue).
func (l *lexer) keep(k, v []byte) {
	if !keyWanted(k) {
		return
	}
	for _, a := range l.tag.attrs[:l.tag.n] {
		if bytes.EqualFold(a.key, k) {
			return
		}
	}
	if bytes.IndexByte(v, '&') < 0 && bytes.IndexByte(v, '\r') < 0 {
		l.tag.add(tagAttr{key: k, val: v})
		return
	}
	s, ok := attrValue(v)
	if !ok {
		l.tag.tokenize = true
	}
	l.tag.add(tagAttr{key: k, str: s, esc: true})
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// untilCloseAngle moves past the next '>' from l.i (a bogus comment, a
// doctype, a processing instruction).
func (l *lexer) untilCloseAngle() bool {
	k := bytes.IndexByte(l.b[l.i:], '>')
	if k < 0 {
		l.i = len(l.b)
		return false
	}
	l.i += k + 1
	return true
}

// markupDeclaration reads what follows "<!" (l.i is past it): a comment
// if "--" follows, anything else up to the next '>' (a doctype reads the
// same way).
func (l *lexer) markupDeclaration() bool {
	b, i := l.b, l.i
	if i+2 > len(b) {
		l.i = len(b)
		return false
	}
	if b[i] == '-' && b[i+1] == '-' {
		l.i = i + 2
		return l.comment()
	}
	return l.untilCloseAngle()
}

// comment reads a comment's text and its end, past "<!--", as the
// tokenizer's readComment.
func (l *lexer) comment() bool {
	b, n := l.b, len(l.b)
	dashes, beginning := 0, true
	for i := l.i; i < n; {
		c := b[i]
		i++
		switch c {
		case '-':
			dashes++
			continue
		case '>':
			if dashes >= 2 || beginning {
				l.i = i
				return true
			}
		case '!':
			if dashes >= 2 {
				if i >= n {
					return false
				}
				c = b[i]
				i++
				if c == '>' {
					l.i = i
					return true
				} else if c == '-' {
					dashes, beginning = 1, false
					continue
				}
			}
		}
		dashes, beginning = 0, false
	}
	l.i = n
	return false
}

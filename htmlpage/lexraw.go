package htmlpage

import "bytes"

// The raw text after an iframe, noembed, noframes, noscript, plaintext,
// script, style, textarea, title or xmp start tag holds no tags: it runs
// to the element's end tag (plaintext: to the end of the body), read as
// the tokenizer's readRawOrRCDATA and readScript read it.

// skipRaw moves past the raw text of l.raw to the '<' of its end tag, and
// reports false when the body ends first.
func (l *lexer) skipRaw() bool {
	name := l.raw
	l.raw = ""
	b := l.b
	switch name {
	case "plaintext":
		l.i = len(b)
		return false
	case "script":
		return l.skipScript()
	}
	i := l.i
	for {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			l.i = len(b)
			return false
		}
		i += j + 1
		if i >= len(b) {
			return false
		}
		if b[i] != '/' {
			continue
		}
		next, ok, eof := rawEndTag(b, i+1, name)
		if eof {
			return false
		}
		if ok {
			l.i = i - 1
			return true
		}
		i = next
	}
}

// rawEndTag reads, from i (past "</"), name and the character after it,
// as the tokenizer's readRawEndTag: ok when they end the raw text.
// Otherwise next is where reading goes on (a character that did not
// match is read again), and eof says the body ended first.
func rawEndTag(b []byte, i int, name string) (next int, ok, eof bool) {
	for k := 0; k < len(name); k++ {
		if i >= len(b) {
			return i, false, true
		}
		if c := b[i]; c != name[k] && c != name[k]-('a'-'A') {
			return i, false, false
		}
		i++
	}
	if i >= len(b) {
		return i, false, true
	}
	switch b[i] {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return i, true, false
	}
	return i, false, false
}

// skipScript moves past a script's text to the '<' of the "</script"
// that ends it, following the escape states of the tokenizer's readScript
// ("<!--" hides a "</script>" that follows a "<script", up to "-->").
func (l *lexer) skipScript() bool {
	const name = "script"
	b, n, i := l.b, len(l.b), l.i
	var (
		c        byte
		next     int
		ok, eof  bool
		matchEnd = func() bool { // "</script": where it starts, past "</"
			next, ok, eof = rawEndTag(b, i, name)
			return ok
		}
	)

scriptData:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	if c == '<' {
		goto scriptDataLessThanSign
	}
	goto scriptData

scriptDataLessThanSign:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '/':
		goto scriptDataEndTagOpen
	case '!':
		goto scriptDataEscapeStart
	}
	i--
	goto scriptData

scriptDataEndTagOpen:
	if matchEnd() {
		l.i = i - 2
		return true
	}
	if eof {
		return false
	}
	i = next
	goto scriptData

scriptDataEscapeStart:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	if c == '-' {
		goto scriptDataEscapeStartDash
	}
	i--
	goto scriptData

scriptDataEscapeStartDash:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	if c == '-' {
		goto scriptDataEscapedDashDash
	}
	i--
	goto scriptData

scriptDataEscaped:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '-':
		goto scriptDataEscapedDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDash:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDashDash:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataEscaped

scriptDataEscapedLessThanSign:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	if c == '/' {
		goto scriptDataEscapedEndTagOpen
	}
	if isLetter(c) {
		goto scriptDataDoubleEscapeStart
	}
	i--
	goto scriptData

scriptDataEscapedEndTagOpen:
	if matchEnd() {
		l.i = i - 2
		return true
	}
	if eof {
		return false
	}
	i = next
	goto scriptDataEscaped

scriptDataDoubleEscapeStart:
	i--
	for k := 0; k < len(name); k++ {
		if i >= n {
			return false
		}
		c, i = b[i], i+1
		if c != name[k] && c != name[k]-('a'-'A') {
			i--
			goto scriptDataEscaped
		}
	}
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		goto scriptDataDoubleEscaped
	}
	i--
	goto scriptDataEscaped

scriptDataDoubleEscaped:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDash:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDashDash:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedLessThanSign:
	if i >= n {
		return false
	}
	c, i = b[i], i+1
	if c == '/' {
		goto scriptDataDoubleEscapeEnd
	}
	i--
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapeEnd:
	if matchEnd() {
		i = next + 1 // past "</script" and the character after it
		goto scriptDataEscaped
	}
	if eof {
		return false
	}
	i = next
	goto scriptDataDoubleEscaped
}

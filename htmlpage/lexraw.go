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
// Plain script text is searched for '<' with bytes.IndexByte. The
// tokenizer's six escaped and double-escaped states read alike but for
// two things, kept here as a count of the dashes just read (its dash
// states) and double (its double-escaped states): "-->" ends either and
// goes back to plain script text; "</script" ends the script only when
// escaped, and a double escape goes back to escaped; "<script" makes an
// escape double.
func (l *lexer) skipScript() bool {
	const name = "script"
	b, n, i := l.b, len(l.b), l.i
data:
	for {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 || i+j+1 >= n {
			return false
		}
		i += j + 1
		switch b[i] {
		case '/':
			next, ok, eof := rawEndTag(b, i+1, name)
			if ok {
				l.i = i - 1
				return true
			}
			if eof {
				return false
			}
			i = next
			continue
		case '!':
			i++
			if i >= n {
				return false
			}
			if b[i] != '-' {
				continue
			}
			i++
			if i >= n {
				return false
			}
			if b[i] != '-' {
				continue
			}
			i++
		default:
			continue
		}
		// Escaped (double: double-escaped), entered after "<!--" with its
		// two dashes counted.
		dashes, double := 2, false
		for {
			if i >= n {
				return false
			}
			c := b[i]
			i++
			switch c {
			case '-':
				dashes++
				continue
			case '>':
				if dashes >= 2 {
					continue data
				}
			case '<':
				if i >= n {
					return false
				}
				c = b[i]
				i++
				switch {
				case c == '/':
					next, ok, eof := rawEndTag(b, i, name)
					if ok && !double {
						l.i = i - 2
						return true
					}
					if eof {
						return false
					}
					if ok {
						i, double = next+1, false
					} else {
						i = next
					}
				case !double && isLetter(c):
					i--
					k := 0
					for ; k < len(name); k++ {
						if i >= n {
							return false
						}
						if c := b[i]; c != name[k] && c != name[k]-('a'-'A') {
							break
						}
						i++
					}
					if k == len(name) {
						if i >= n {
							return false
						}
						switch b[i] {
						case ' ', '\n', '\r', '\t', '\f', '/', '>':
							double = true
							i++
						}
					}
				case !double:
					i--
					continue data
				default:
					i--
				}
			}
			dashes = 0
		}
	}
}

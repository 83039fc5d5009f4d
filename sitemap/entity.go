package sitemap

import (
	"io"
	"strings"
)

// Entity references that are not expanded.
//
// encoding/xml, when not strict (real sitemaps have unescaped "&" in
// URLs), keeps an entity reference it cannot expand as written, so that
// <loc>https://example.com/&test;</loc> would read as a URL with "&test;"
// in it: a URL nobody wrote, and the mark of an external or undefined
// entity that must never be expanded. Telling it apart from an escaped
// "&amp;test;" needs the raw bytes, so entityScanner reads them on their
// way to the decoder and, for each name it sees in a reference, maps the
// name (through Decoder.Entity) to a marker: the decoder then writes the
// marker instead of the reference, and the parser drops a loc or href
// that has one and writes every other field back as written. The marker
// is never the entity's value: nothing is ever expanded, from a DOCTYPE or
// from outside the document.

const (
	// entityOpen and entityClose delimit a marker. They are Unicode
	// noncharacters: no sitemap has a reason to contain them.
	entityOpen  = "\uFDD0"
	entityClose = "\uFDD1"
	// maxEntityNames bounds the names mapped; a document with more
	// distinct names than that has its later ones found by their text
	// (see entityScanner.overflow).
	maxEntityNames = 1024
	maxEntityName  = 128
)

// predefined are the entities XML expands itself.
var predefined = map[string]bool{"lt": true, "gt": true, "amp": true, "apos": true, "quot": true}

// entityScanner passes bytes through unchanged and maps every entity name
// it sees in a reference ("&name;") to a marker in names, which is the
// decoder's Entity map.
type entityScanner struct {
	r        io.Reader
	names    map[string]string
	inRef    bool
	name     []byte
	overflow bool // more than maxEntityNames names: the rest are not mapped
}

func (s *entityScanner) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	for _, c := range b[:n] {
		s.scan(c)
	}
	return n, err
}

func (s *entityScanner) scan(c byte) {
	if !s.inRef {
		if c == '&' {
			s.inRef, s.name = true, s.name[:0]
		}
		return
	}
	switch {
	case c == ';':
		s.inRef = false
		s.add(string(s.name))
	case c == '&':
		s.name = s.name[:0]
	case isEntityNameChar(c, len(s.name) == 0) && len(s.name) < maxEntityName:
		s.name = append(s.name, c)
	default:
		s.inRef = false
	}
}

func (s *entityScanner) add(name string) {
	if name == "" || predefined[name] {
		return
	}
	if _, ok := s.names[name]; ok {
		return
	}
	if len(s.names) >= maxEntityNames {
		s.overflow = true
		return
	}
	s.names[name] = entityOpen + name + entityClose
}

// isEntityNameChar reports whether c may be part of an entity name (XML
// 1.0 Name, with every non-ASCII octet accepted).
func isEntityNameChar(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == ':', c >= 0x80:
		return true
	case '0' <= c && c <= '9', c == '-', c == '.':
		return !first
	}
	return false
}

// unexpanded returns the first entity reference in s that was not
// expanded, as written ("&test;"), or "". When the scanner overflowed, a
// reference kept as written by the decoder counts too.
func (s *entityScanner) unexpanded(v string) string {
	if i := strings.Index(v, entityOpen); i >= 0 {
		rest := v[i+len(entityOpen):]
		if j := strings.Index(rest, entityClose); j >= 0 {
			return "&" + rest[:j] + ";"
		}
	}
	if s.overflow {
		return textualReference(v)
	}
	return ""
}

// textualReference finds "&name;" in decoded text.
func textualReference(v string) string {
	for i := strings.IndexByte(v, '&'); i >= 0 && i < len(v); {
		j := i + 1
		for j < len(v) && isEntityNameChar(v[j], j == i+1) {
			j++
		}
		if j > i+1 && j < len(v) && v[j] == ';' && !predefined[v[i+1:j]] {
			return v[i : j+1]
		}
		k := strings.IndexByte(v[i+1:], '&')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return ""
}

// restoreEntities writes every marker in v back as the reference it
// stands for, for fields that are kept as written.
func restoreEntities(v string) string {
	if !strings.Contains(v, entityOpen) {
		return v
	}
	v = strings.ReplaceAll(v, entityOpen, "&")
	return strings.ReplaceAll(v, entityClose, ";")
}

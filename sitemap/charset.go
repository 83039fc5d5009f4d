package sitemap

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// windows1252 maps bytes 0x80-0x9F, which windows-1252 uses for printable
// characters where ISO-8859-1 has C1 controls; documents labelled
// ISO-8859-1 are nearly always windows-1252 in practice.
var windows1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8d, 'Ž', 0x8f,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9d, 'ž', 'Ÿ',
}

// latin1Reader converts windows-1252 (a superset of ISO-8859-1's
// printable characters) to UTF-8.
type latin1Reader struct {
	r   io.Reader
	in  [2048]byte
	out []byte // converted bytes not yet returned
}

func (l *latin1Reader) Read(b []byte) (int, error) {
	if len(l.out) == 0 {
		n, err := l.r.Read(l.in[:])
		if n == 0 {
			return 0, err
		}
		out := l.out[:0]
		for _, c := range l.in[:n] {
			switch {
			case c < 0x80:
				out = append(out, c)
			case c < 0xa0:
				out = utf8.AppendRune(out, windows1252[c-0x80])
			default:
				out = utf8.AppendRune(out, rune(c))
			}
		}
		l.out = out
	}
	n := copy(b, l.out)
	l.out = l.out[n:]
	return n, nil
}

// charsetReader lets a document declare an encoding other than UTF-8.
// ISO-8859-1 and windows-1252 are converted; anything else is read as
// UTF-8 and reported (the protocol requires UTF-8).
func (x *xmlParser) charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "windows-1252", "cp1252":
		x.rep.addProblem(ProblemEncoding, 1, "", fmt.Sprintf("encoding %q converted to UTF-8; sitemaps must be UTF-8", label))
		return &latin1Reader{r: in}, nil
	}
	x.rep.addProblem(ProblemEncoding, 1, "", fmt.Sprintf("encoding %q not supported; read as UTF-8", cut(label, 64)))
	return in, nil
}

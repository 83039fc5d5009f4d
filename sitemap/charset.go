package sitemap

import (
	"io"
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

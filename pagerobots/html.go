package pagerobots

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// ScanHTML reads the meta robots elements of an HTML document for the
// crawler whose product token is token: <meta name="robots"> and <meta
// name="TOKEN">, anywhere in the document, at most MaxStatements of them.
// It reads at most limit bytes (no limit when limit <= 0) and returns the
// error of r other than io.EOF, with what it read before it. Malformed
// HTML is read as browsers read it; it is never an error.
func ScanHTML(r io.Reader, token string, limit int64) (Directives, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit)
	}
	lc := &lineCounter{r: r}
	z := html.NewTokenizer(lc)
	z.SetMaxBuf(1 << 20)
	var ds Directives
	statements := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF && err != html.ErrBufferExceeded {
				return ds, err
			}
			return ds, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			// The line the tag starts on: lines before the bytes the
			// tokenizer has not returned yet, less those in the tag.
			line := lc.lineAt(z) - bytes.Count(z.Raw(), []byte{'\n'})
			var metaName, content string
			hasContent := false
			for {
				k, v, more := z.TagAttr()
				switch string(k) {
				case "name":
					metaName = string(v)
				case "content":
					content, hasContent = string(v), true
				}
				if !more {
					break
				}
			}
			if !hasContent {
				continue
			}
			d := ParseMeta(token, metaName, content, line)
			if len(d.List) == 0 && !strings.EqualFold(strings.TrimSpace(metaName), "robots") {
				continue
			}
			ds.Add(d)
			if statements++; statements >= MaxStatements {
				return ds, nil
			}
		}
	}
}

// lineCounter counts the newlines handed to the tokenizer, so that the
// line of a token is the count minus those in what is still buffered.
type lineCounter struct {
	r     io.Reader
	lines int // newlines read so far
}

func (l *lineCounter) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	l.lines += bytes.Count(b[:n], []byte{'\n'})
	return n, err
}

// lineAt returns the 1-based line the tokenizer's position is on.
func (l *lineCounter) lineAt(z *html.Tokenizer) int {
	return l.lines + 1 - bytes.Count(z.Buffered(), []byte{'\n'})
}

package sitemap

import (
	"bufio"
	"bytes"
)

// parseText reads a plain-text sitemap: one URL a line, UTF-8; blank
// lines and white space around a URL are ignored. A line that is not a URL
// is delivered with ProblemInvalidURL, so that nothing listed is lost
// without a trace.
func (p *parser) parseText(in *bufio.Reader) {
	limit := 4*p.cfg.maxLoc + 4 // bytes kept of one line; runes are counted later
	buf := make([]byte, 0, 256)
	line := p.lineOff
	for {
		if p.cancelled() {
			return
		}
		b, overflow, err := readLine(in, &buf, limit)
		if len(b) == 0 && err != nil {
			break
		}
		line++
		if err != nil && p.lim.exceeded {
			break // the limit cut this line: it is not whole
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			if err != nil {
				break
			}
			continue
		}
		e := Entry{Kind: KindURL, Loc: string(b), Line: line}
		if !p.emit(&e, false, overflow) || err != nil {
			break
		}
	}
	p.inputFailed()
}

// readLine returns the next line without its end, keeping at most limit
// bytes of it (overflow is true when more were dropped). err is set at the
// end of input, with the last line if it had no newline. The result is
// valid until the next call.
func readLine(in *bufio.Reader, buf *[]byte, limit int) (line []byte, overflow bool, err error) {
	b, err := in.ReadSlice('\n')
	if err == nil || err != bufio.ErrBufferFull {
		b = trimEOL(b)
		if len(b) > limit {
			b, overflow = b[:limit], true
		}
		return b, overflow, err
	}
	// A line longer than the buffer: keep up to limit bytes, drop the rest
	// as it streams by.
	*buf = append((*buf)[:0], b[:min(len(b), limit)]...)
	overflow = len(b) > limit
	for err == bufio.ErrBufferFull {
		b, err = in.ReadSlice('\n')
		room := max(limit-len(*buf), 0)
		if len(trimEOL(b)) > room {
			overflow = true
		}
		*buf = append(*buf, b[:min(len(b), room)]...)
	}
	return trimEOL(*buf), overflow, err
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b
}

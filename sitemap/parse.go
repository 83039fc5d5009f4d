package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"unicode/utf8"
)

// ErrUnknownFormat is wrapped by Report.Err when the content is none of the
// formats heed reads: empty, binary, UTF-16, or XML with another root
// element (an HTML error page served with status 200, say).
var ErrUnknownFormat = errors.New("sitemap: unknown format")

// errTokenTooLarge is returned by tokenGuard to stop encoding/xml from
// buffering one endless token.
var errTokenTooLarge = errors.New("sitemap: XML token larger than 1 MiB")

// Parse reads one sitemap document from r and calls visit with each entry
// it lists, in document order, as soon as the entry is complete. It keeps
// no entry after visit returns, so memory does not grow with the document.
// A nil visit only counts: the Report is all that is wanted.
//
// The format is detected from the content (see [Format]); gzip is detected
// from its magic bytes and decompressed, whatever the name says. Limits
// (WithMaxURLs, WithMaxBytes, WithMaxLocLength) stop or reject input past
// them and are reported in the Report.
//
// Nothing wrong with the document is returned as an error: malformed XML,
// a truncated gzip stream, a read error, an unknown format all end up in
// Report.Err and Report.Problems, after every entry read before them has
// been delivered. Parse returns a non-nil error only when it was stopped
// from outside: visit returned an error (returned as is), or ctx was
// cancelled (ctx.Err()). The Report is never nil.
//
// Cancellation is checked between tokens and lines; a Read blocked in r is
// not interrupted, so give Parse a body that ends with ctx (an
// http.Request made with ctx does).
func Parse(ctx context.Context, r io.Reader, visit func(Entry) error, opts ...Option) (*Report, error) {
	cfg := newConfig(opts)
	if visit == nil {
		visit = func(Entry) error { return nil }
	}
	p := newParser(ctx, &cfg, visit)
	p.run(r)
	return p.rep, p.stop
}

type parser struct {
	ctx   context.Context
	cfg   *config
	rep   *Report
	visit func(Entry) error
	stop  error // from visit or ctx: ends the parse and is returned

	scope scopeChecker

	src     *errReader   // the caller's reader
	gz      *errReader   // the decompressed stream, when gzip
	lim     *limitReader // WithMaxBytes
	lineOff int          // lines consumed before the first token
	ticks   int
}

func newParser(ctx context.Context, cfg *config, visit func(Entry) error) *parser {
	p := &parser{ctx: ctx, cfg: cfg, visit: visit, rep: newReport(cfg.base, cfg.maxProblems)}
	if cfg.base != "" {
		u, err := url.Parse(cfg.base)
		if err != nil || !u.IsAbs() || u.Host == "" {
			p.rep.addProblem(ProblemInvalidURL, 0, cfg.base, "the sitemap's own URL is not absolute: no scope checked, relative locs invalid")
		} else {
			p.scope = newScopeChecker(u, cfg.scope)
		}
	}
	return p
}

// cancelled checks ctx every 256 calls, cheaply enough for every token.
func (p *parser) cancelled() bool {
	p.ticks++
	if p.ticks&255 != 0 {
		return false
	}
	if err := p.ctx.Err(); err != nil {
		p.stop = err
		return true
	}
	return false
}

func (p *parser) run(r io.Reader) {
	if err := p.ctx.Err(); err != nil {
		p.stop = err
		return
	}
	p.src = &errReader{r: r}
	cur := bufio.NewReaderSize(p.src, 4096)
	// Two layers at most: a .gz file served with Content-Encoding: gzip
	// and not decoded by the client arrives gzipped twice.
	for layer := 0; layer < 2 && isGzip(cur); layer++ {
		zr, err := gzip.NewReader(cur)
		if err != nil {
			p.failRead(err)
			return
		}
		p.rep.Compressed = true
		p.gz = &errReader{r: zr}
		cur = bufio.NewReaderSize(p.gz, 4096)
	}
	p.lim = &limitReader{r: cur, left: p.cfg.maxBytes}
	in := bufio.NewReaderSize(p.lim, 64<<10)
	defer func() { p.rep.Bytes = p.lim.n }()

	switch p.sniff(in) {
	case '<':
		p.parseXML(in)
	case 't':
		p.rep.Format = FormatText
		p.parseText(in)
	}
	if p.lim.exceeded && p.stop == nil && !p.rep.Truncated {
		p.rep.Truncated = true
		p.rep.TruncatedBy = ProblemMaxBytes
		p.rep.addProblem(ProblemMaxBytes, 0, "", fmt.Sprintf("document larger than %d bytes uncompressed; the rest is not read", p.cfg.maxBytes))
	}
}

func isGzip(r *bufio.Reader) bool {
	b, _ := r.Peek(2)
	return len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// sniff skips a BOM and leading white space and says what follows: '<' for
// XML, 't' for text, 0 when the document is unknown (already reported).
func (p *parser) sniff(in *bufio.Reader) byte {
	if b, _ := in.Peek(3); bytes.HasPrefix(b, utf8BOM) {
		in.Discard(3)
	} else if len(b) >= 2 && (b[0] == 0xfe && b[1] == 0xff || b[0] == 0xff && b[1] == 0xfe) {
		p.rep.addProblem(ProblemEncoding, 1, "", "UTF-16 is not supported; sitemaps must be UTF-8")
		p.unknown(1, "UTF-16 content")
		return 0
	}
	for {
		c, err := in.ReadByte()
		if err != nil {
			if p.inputFailed() {
				return 0
			}
			if !p.lim.exceeded {
				p.unknown(p.lineOff+1, "empty document")
			}
			return 0
		}
		switch c {
		case '\n':
			p.lineOff++
			continue
		case ' ', '\t', '\r':
			continue
		}
		in.UnreadByte()
		if c == '<' {
			return '<'
		}
		if !looksLikeText(in) {
			p.unknown(p.lineOff+1, "binary content")
			return 0
		}
		return 't'
	}
}

// looksLikeText accepts the first 512 bytes if they are UTF-8 without
// control characters other than tab, CR and LF.
func looksLikeText(in *bufio.Reader) bool {
	b, _ := in.Peek(512)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(b) {
				return true // a rune cut by the peek
			}
			return false
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return false
		}
		b = b[size:]
	}
	return true
}

func (p *parser) unknown(line int, detail string) {
	p.rep.Format = FormatUnknown
	p.rep.fail(ProblemUnknownFormat, line, "sitemap: ", fmt.Errorf("%w: %s", ErrUnknownFormat, detail))
}

// failRead records an error of the input itself: the caller's reader
// failing, or the gzip stream being corrupt or cut short. err is the error
// of gzip.NewReader, or nil.
func (p *parser) failRead(err error) {
	switch {
	case p.src.err != nil:
		p.rep.fail(ProblemRead, 0, "sitemap: reading: ", fmt.Errorf("sitemap: reading: %w", p.src.err))
	case p.gz != nil && p.gz.err != nil:
		p.rep.fail(ProblemGzip, 0, "sitemap: gzip: ", fmt.Errorf("sitemap: gzip: %w", p.gz.err))
	case err != nil:
		p.rep.fail(ProblemGzip, 0, "sitemap: gzip: ", fmt.Errorf("sitemap: gzip: %w", err))
	}
}

// inputFailed reports whether the input (not the document) failed, and
// records it if so.
func (p *parser) inputFailed() bool {
	if p.src.err != nil || p.gz != nil && p.gz.err != nil {
		p.failRead(nil)
		return true
	}
	return false
}

// emit checks e (limit, loc, scope), counts it and hands it to visit. It
// returns false when the parse must stop.
func (p *parser) emit(e *Entry, relative bool, overflow bool) bool {
	if p.rep.Entries >= p.cfg.maxURLs {
		p.rep.Truncated = true
		p.rep.TruncatedBy = ProblemMaxURLs
		p.rep.addProblem(ProblemMaxURLs, e.Line, e.Loc, fmt.Sprintf("more than %d entries; this one and the rest are not read", p.cfg.maxURLs))
		return false
	}
	p.checkLoc(e, relative, overflow)
	e.Sitemap = p.cfg.base
	p.rep.Entries++
	switch {
	case e.Problem != "":
		p.rep.Rejected++
	case e.Kind == KindSitemap:
		p.rep.Sitemaps++
	default:
		p.rep.URLs++
	}
	if err := p.visit(*e); err != nil {
		p.stop = err
		return false
	}
	return !p.cancelled()
}

// errReader remembers the first error other than io.EOF its reader
// returned, so that a failing input is told apart from a malformed
// document.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// limitReader ends the stream after left bytes and notes whether there was
// more. Reading stops there: a gzip bomb is decompressed no further.
type limitReader struct {
	r        io.Reader
	left     int64
	n        int64
	exceeded bool
}

func (l *limitReader) Read(b []byte) (int, error) {
	if l.left <= 0 {
		if !l.exceeded {
			var one [1]byte
			for range 8 { // io.Reader allows (0, nil); do not spin on it
				n, err := l.r.Read(one[:])
				if n > 0 {
					l.exceeded = true
				}
				if n > 0 || err != nil {
					break
				}
			}
		}
		return 0, io.EOF
	}
	if int64(len(b)) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	l.n += int64(n)
	return n, err
}

// tokenGuard fails the read when encoding/xml has read more than
// maxTokenBytes since it last returned a token: encoding/xml buffers a
// whole token (a text run, a tag, a comment), and a hostile one could
// otherwise be as large as the byte limit. The mark is the guard's own
// count, not the decoder's offset, which counts bytes after a charset
// conversion; the decoder's read-ahead adds at most its buffer (4 KiB).
type tokenGuard struct {
	r    io.Reader
	n    int64 // bytes handed to the decoder
	mark int64 // n when the decoder last returned a token
}

func (g *tokenGuard) Read(b []byte) (int, error) {
	if g.n-g.mark > maxTokenBytes {
		return 0, errTokenTooLarge
	}
	n, err := g.r.Read(b)
	g.n += int64(n)
	return n, err
}

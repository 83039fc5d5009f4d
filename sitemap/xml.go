package sitemap

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Namespaces of the sitemaps protocol, its Google extensions and feeds.
// Elements are matched on local names; a namespace that differs from these
// is tolerated and reported once per element kind.
const (
	nsSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
	nsImage   = "http://www.google.com/schemas/sitemap-image/1.1"
	nsVideo   = "http://www.google.com/schemas/sitemap-video/1.1"
	nsNews    = "http://www.google.com/schemas/sitemap-news/0.9"
	nsXHTML   = "http://www.w3.org/1999/xhtml"
	nsAtom    = "http://www.w3.org/2005/Atom"
)

type subElement uint8

const (
	subNone subElement = iota
	subImage
	subVideo
	subNews
	subPublication
)

// capture collects the text of one element into dst, cut at limit bytes.
type capture struct {
	depth    int // 0 when not capturing
	dst      *string
	limit    int
	name     string
	buf      []byte
	overflow bool
}

// xmlParser is the state of one XML document: where in the tree it is and
// the entry being built. It holds at most one entry at a time.
type xmlParser struct {
	*parser
	d     *xml.Decoder
	guard *tokenGuard
	ents  *entityScanner
	depth int

	inEntry    bool
	entryDepth int
	entryLine  int
	e          Entry
	loc        string
	locLine    int
	locOver    bool
	priority   string
	altDate    string // Atom published, RSS dc:date: lastmod when no other
	guid       string
	guidLink   bool
	atomLink   bool // an Atom link was taken
	sub        subElement
	subDepth   int
	img        Image
	vid        Video
	tag        string
	cap        capture
	nsReported map[string]bool
}

func (p *parser) parseXML(in *bufio.Reader) {
	g := &tokenGuard{r: in}
	ents := &entityScanner{r: g, names: map[string]string{}}
	x := &xmlParser{parser: p, guard: g, ents: ents, d: xml.NewDecoder(ents), nsReported: map[string]bool{}}
	// Not strict: real sitemaps have unescaped & in URLs. An entity that
	// is not predefined is never expanded: the Entity map, filled by the
	// scanner, turns each reference into a marker (see entity.go).
	x.d.Strict = false
	x.d.Entity = ents.names
	x.d.CharsetReader = x.charsetReader
	for {
		tok, err := x.d.Token()
		if err != nil {
			x.fail(err)
			return
		}
		g.mark = g.n
		if !x.token(tok) || p.cancelled() {
			return
		}
	}
}

func (x *xmlParser) line() int {
	l, _ := x.d.InputPos()
	return l + x.lineOff
}

// fail sorts out why the token stream ended.
func (x *xmlParser) fail(err error) {
	if err == io.EOF {
		if x.rep.Format == FormatUnknown && x.rep.Err == nil && !x.lim.exceeded {
			x.unknown(x.line(), "no root element")
		}
		return
	}
	var syn *xml.SyntaxError
	switch {
	case x.inputFailed():
	case x.lim.exceeded:
		// The limit cut the document; run reports it.
	case errors.Is(err, errTokenTooLarge):
		x.rep.fail(ProblemTokenTooLarge, x.line(), "sitemap: ", err)
	case errors.As(err, &syn):
		x.rep.fail(ProblemMalformed, syn.Line+x.lineOff, "sitemap: malformed XML: ", fmt.Errorf("sitemap: malformed XML: %w", err))
	default:
		x.rep.fail(ProblemMalformed, x.line(), "sitemap: malformed XML: ", fmt.Errorf("sitemap: malformed XML: %w", err))
	}
}

// token handles one token; false ends the parse.
func (x *xmlParser) token(tok xml.Token) bool {
	switch t := tok.(type) {
	case xml.StartElement:
		x.depth++
		if x.depth > maxNesting {
			x.rep.fail(ProblemTooDeep, x.line(), "sitemap: ", fmt.Errorf("sitemap: elements nested deeper than %d", maxNesting))
			return false
		}
		if x.depth == 1 {
			return x.root(t)
		}
		x.start(t)
	case xml.EndElement:
		ok := x.end()
		x.depth--
		return ok
	case xml.CharData:
		if x.cap.depth == x.depth && x.cap.depth > 0 {
			if room := x.cap.limit - len(x.cap.buf); len(t) > room {
				x.cap.buf = append(x.cap.buf, t[:max(room, 0)]...)
				x.cap.overflow = true
			} else {
				x.cap.buf = append(x.cap.buf, t...)
			}
		}
	case xml.Directive:
		if len(t) >= 7 && strings.EqualFold(string(t[:7]), "DOCTYPE") && !x.nsReported["!doctype"] {
			x.nsReported["!doctype"] = true
			x.rep.addProblem(ProblemDoctype, x.line(), "", "DOCTYPE ignored; its entities are not expanded")
		}
	}
	return true
}

// root decides the format from the root element.
func (x *xmlParser) root(t xml.StartElement) bool {
	name := t.Name.Local
	want := ""
	switch {
	case strings.EqualFold(name, "urlset"):
		x.rep.Format, want = FormatURLSet, nsSitemap
	case strings.EqualFold(name, "sitemapindex"):
		x.rep.Format, want = FormatIndex, nsSitemap
	case strings.EqualFold(name, "rss"), name == "RDF":
		x.rep.Format = FormatRSS
	case strings.EqualFold(name, "feed"):
		x.rep.Format, want = FormatAtom, nsAtom
	default:
		x.unknown(x.line(), "root element <"+name+">")
		return false
	}
	if want != "" && t.Name.Space != want {
		x.reportNS(name, t.Name.Space, want)
	}
	return true
}

func (x *xmlParser) reportNS(name, got, want string) {
	if x.nsReported[name] {
		return
	}
	x.nsReported[name] = true
	detail := fmt.Sprintf("<%s> has no namespace; want %s", name, want)
	if got != "" {
		detail = fmt.Sprintf("<%s> in namespace %q; want %s", name, got, want)
	}
	x.rep.addProblem(ProblemNamespace, x.line(), "", detail)
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (x *xmlParser) capture(dst *string, name string) {
	limit := maxFieldBytes
	if dst == &x.loc {
		limit = 4*x.cfg.maxLoc + 4 // runes are counted later
		x.locLine = x.line()
	}
	x.cap = capture{depth: x.depth, dst: dst, limit: limit, name: name, buf: x.cap.buf[:0]}
}

func (x *xmlParser) start(t xml.StartElement) {
	name := t.Name.Local
	if !x.inEntry {
		x.startEntry(t)
		return
	}
	if x.cap.depth > 0 {
		return // markup inside a field: ignored
	}
	parent := x.depth - 1
	switch {
	case x.sub == subNone && parent == x.entryDepth:
		x.entryChild(t)
	case x.sub != subNone && parent == x.subDepth:
		x.subChild(name)
	}
}

func (x *xmlParser) startEntry(t xml.StartElement) {
	name := t.Name.Local
	kind := KindURL
	switch x.rep.Format {
	case FormatURLSet, FormatIndex:
		if x.depth != 2 {
			return
		}
		switch name {
		case "url":
			if x.rep.Format == FormatIndex {
				x.rep.addProblem(ProblemUnexpectedElement, x.line(), "", "<url> in a sitemapindex; read as a URL")
			}
		case "sitemap":
			kind = KindSitemap
			if x.rep.Format == FormatURLSet {
				x.rep.addProblem(ProblemUnexpectedElement, x.line(), "", "<sitemap> in a urlset; read as a child sitemap")
			}
		default:
			return
		}
	case FormatRSS:
		if name != "item" {
			return
		}
	case FormatAtom:
		if name != "entry" {
			return
		}
	}
	x.inEntry, x.entryDepth, x.entryLine = true, x.depth, x.line()
	x.e = Entry{Kind: kind}
	x.loc, x.locLine, x.locOver, x.priority, x.altDate = "", 0, false, "", ""
	x.guid, x.guidLink, x.atomLink, x.sub = "", false, false, subNone
}

func (x *xmlParser) entryChild(t xml.StartElement) {
	name := t.Name.Local
	switch x.rep.Format {
	case FormatRSS:
		switch name {
		case "link":
			if t.Name.Space != nsAtom {
				x.capture(&x.loc, name)
			}
		case "pubDate":
			x.capture(&x.e.LastModRaw, name)
		case "date": // Dublin Core dc:date
			x.capture(&x.altDate, name)
		case "guid":
			x.guidLink = attr(t, "isPermaLink") != "false"
			x.capture(&x.guid, name)
		}
		return
	case FormatAtom:
		switch name {
		case "link":
			rel := attr(t, "rel")
			if !x.atomLink && (rel == "" || rel == "alternate") {
				x.atomLink = true
				x.loc, x.locLine = strings.TrimSpace(attr(t, "href")), x.line()
				if len(x.loc) > 4*x.cfg.maxLoc+4 {
					x.loc, x.locOver = x.loc[:4*x.cfg.maxLoc+4], true
				}
			}
		case "updated":
			x.capture(&x.e.LastModRaw, name)
		case "published":
			x.capture(&x.altDate, name)
		}
		return
	}
	switch name {
	case "loc":
		x.capture(&x.loc, name)
	case "lastmod":
		x.capture(&x.e.LastModRaw, name)
	case "changefreq":
		x.capture(&x.e.ChangeFreq, name)
	case "priority":
		x.capture(&x.priority, name)
	case "image":
		x.checkNS(t, nsImage)
		x.sub, x.subDepth, x.img = subImage, x.depth, Image{}
	case "video":
		x.checkNS(t, nsVideo)
		x.sub, x.subDepth, x.vid = subVideo, x.depth, Video{}
	case "news":
		x.checkNS(t, nsNews)
		x.sub, x.subDepth = subNews, x.depth
		if x.e.News == nil {
			x.e.News = &News{}
		}
	case "link":
		if attr(t, "rel") != "alternate" {
			return
		}
		x.checkNS(t, nsXHTML)
		href := strings.TrimSpace(attr(t, "href"))
		if href == "" {
			x.rep.addProblem(ProblemAlternateHref, x.line(), "", "xhtml:link alternate without href; dropped")
			return
		}
		if ref := x.ents.unexpanded(href); ref != "" {
			x.rep.addProblem(ProblemEntity, x.line(), restoreEntities(href), "xhtml:link href has the entity "+ref+", which is never expanded; dropped")
			return
		}
		if len(x.e.Alternates) >= maxExtensions {
			x.rep.addProblem(ProblemExtensionLimit, x.line(), "", fmt.Sprintf("more than %d alternates", maxExtensions))
			return
		}
		x.e.Alternates = append(x.e.Alternates, Alternate{
			Href:     cut(href, maxFieldBytes),
			Hreflang: cut(restoreEntities(attr(t, "hreflang")), maxFieldBytes),
			Media:    cut(restoreEntities(attr(t, "media")), maxFieldBytes),
		})
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func (x *xmlParser) checkNS(t xml.StartElement, want string) {
	if t.Name.Space != want {
		x.reportNS(t.Name.Local, t.Name.Space, want)
	}
}

// end handles an end element at x.depth; false ends the parse.
func (x *xmlParser) end() bool {
	switch {
	case x.cap.depth > 0 && x.depth == x.cap.depth:
		x.endCapture()
	case x.sub != subNone && x.depth == x.subDepth:
		x.endSub()
	case x.inEntry && x.depth == x.entryDepth:
		x.inEntry = false
		return x.endEntry()
	}
	return true
}

func (x *xmlParser) endCapture() {
	c := &x.cap
	c.depth = 0
	*c.dst = strings.TrimSpace(string(c.buf))
	if c.dst == &x.loc || c.dst == &x.guid {
		x.locOver = c.overflow && c.dst == &x.loc
		return // endEntry drops a loc with an unexpanded entity
	}
	if c.dst == &x.img.Loc {
		return // endSub drops an image whose loc has one
	}
	*c.dst = restoreEntities(*c.dst)
	if c.overflow {
		x.rep.addProblem(ProblemFieldTooLong, x.line(), "", fmt.Sprintf("<%s> cut to %d bytes", c.name, maxFieldBytes))
	}
	if c.dst == &x.tag {
		if len(x.vid.Tags) < maxExtensions {
			x.vid.Tags = append(x.vid.Tags, x.tag)
		}
	}
}

var changeFreqs = map[string]bool{
	"always": true, "hourly": true, "daily": true, "weekly": true,
	"monthly": true, "yearly": true, "never": true,
}

func (x *xmlParser) endEntry() bool {
	e := &x.e
	if x.loc == "" && x.guidLink && x.guid != "" {
		x.loc = x.guid // RSS items may name their page only by a permalink guid
	}
	if x.loc == "" {
		x.rep.addProblem(ProblemMissingLoc, x.entryLine, "", "entry without a loc; skipped")
		return !x.cancelled()
	}
	if ref := x.ents.unexpanded(x.loc); ref != "" {
		// The URL is unknown: whatever the entity stood for is not in the
		// document, and heed never fetches it to find out.
		x.rep.addProblem(ProblemEntity, x.locLine, restoreEntities(x.loc), "the entity "+ref+" is never expanded, so the loc names no known URL; dropped")
		return !x.cancelled()
	}
	e.Loc, e.Line = x.loc, x.locLine
	if e.LastModRaw == "" {
		e.LastModRaw = x.altDate
	}
	if e.LastModRaw != "" {
		e.LastMod = x.date(e.LastModRaw, e.Line, e.Loc, "lastmod")
	}
	if n := e.News; n != nil && n.PublicationDateRaw != "" {
		n.PublicationDate = x.date(n.PublicationDateRaw, e.Line, e.Loc, "news publication_date")
	}
	if e.ChangeFreq != "" {
		e.ChangeFreq = strings.ToLower(e.ChangeFreq)
		if !changeFreqs[e.ChangeFreq] {
			x.rep.addProblem(ProblemChangeFreq, e.Line, e.Loc, fmt.Sprintf("changefreq %q is not one of the protocol's values", e.ChangeFreq))
		}
	}
	if x.priority != "" {
		f, err := strconv.ParseFloat(x.priority, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			x.rep.addProblem(ProblemPriority, e.Line, e.Loc, fmt.Sprintf("priority %q is not a number from 0.0 to 1.0; ignored", x.priority))
		} else {
			e.Priority, e.HasPriority = f, true
		}
	}
	return x.emit(e, true, x.locOver)
}

// date parses a date field, reporting what could not be read cleanly.
func (x *xmlParser) date(raw string, line int, loc, field string) time.Time {
	t, note, ok := parseDate(raw)
	switch {
	case !ok:
		x.rep.addProblem(ProblemLastMod, line, loc, fmt.Sprintf("%s %q could not be parsed; kept as written", field, cut(raw, 64)))
	case note != "":
		x.rep.addProblem(ProblemLastMod, line, loc, fmt.Sprintf("%s %q: %s", field, cut(raw, 64), note))
	}
	return t
}

package sitemap

import "time"

// Kind says what an [Entry] names: a page, or a child sitemap listed by a
// sitemap index.
type Kind uint8

const (
	// KindURL is a page: a <url> of a urlset, a line of a text sitemap, an
	// RSS <item> or an Atom <entry>.
	KindURL Kind = iota
	// KindSitemap is a child sitemap: a <sitemap> of a sitemapindex.
	KindSitemap
)

// String returns "url" or "sitemap".
func (k Kind) String() string {
	if k == KindSitemap {
		return "sitemap"
	}
	return "url"
}

// Format is the kind of document, decided from its content (the first
// significant token), never from its name or Content-Type.
type Format uint8

const (
	// FormatUnknown is a document none of the formats below recognises
	// (an HTML error page, binary data, an empty body).
	FormatUnknown Format = iota
	// FormatURLSet is an XML <urlset>.
	FormatURLSet
	// FormatIndex is an XML <sitemapindex>.
	FormatIndex
	// FormatText is a plain-text sitemap: one URL a line.
	FormatText
	// FormatRSS is an RSS feed (<rss> 2.0, or RSS 1.0's <rdf:RDF>).
	FormatRSS
	// FormatAtom is an Atom <feed>.
	FormatAtom
)

var formatNames = [...]string{"unknown", "urlset", "sitemapindex", "text", "rss", "atom"}

// String returns the format's name as heed's reports print it.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "unknown"
}

// Entry is one thing a sitemap lists: a page (Kind KindURL) or, in a
// sitemap index, a child sitemap (Kind KindSitemap).
//
// Loc is the absolute URL, trimmed of surrounding white space and resolved
// against the sitemap's URL when written relative. An entry whose Problem
// is not empty must not be fetched: it is delivered anyway so that the
// caller can account for it (heed's crawler writes it to the skip log);
// the same problem is also in the [Report].
type Entry struct {
	Kind Kind
	Loc  string
	// Problem is empty for an entry the caller may fetch. Otherwise it is
	// ProblemOutOfScope, ProblemInvalidURL or ProblemLocTooLong (Loc then
	// holds only the first MaxLocLength characters), and Detail says more.
	Problem ProblemKind
	Detail  string

	// LastMod is the parsed <lastmod> (RSS pubDate, Atom updated), in the
	// zone it was written in; zero when absent or unparseable. LastModRaw
	// is the text as written, kept even when it could not be parsed. A
	// date without a time (2024-03-05, 2024-03, 2024) is its first instant
	// in UTC, and a time without a zone is read as UTC (and reported).
	LastMod    time.Time
	LastModRaw string
	// ChangeFreq is the <changefreq> value, lower-cased ("daily", ...).
	ChangeFreq string
	// Priority is the <priority> value; HasPriority tells an absent
	// priority (the protocol's default is 0.5) from an explicit 0.
	Priority    float64
	HasPriority bool

	// Optional extensions of a <url>; nil when absent.
	Images     []Image
	News       *News
	Videos     []Video
	Alternates []Alternate

	// Sitemap is the URL of the sitemap the entry came from (the base set
	// with WithBase, or the sitemap Walk fetched); empty when unknown.
	Sitemap string
	// Line is the line of the entry's <loc> (or of its element, or the
	// text line) in the uncompressed document, counted from 1.
	Line int
}

// Image is one <image:image> of Google's image sitemap extension.
type Image struct {
	Loc         string
	Caption     string
	Title       string
	GeoLocation string
	License     string
}

// News is the <news:news> of Google's news sitemap extension.
type News struct {
	PublicationName     string
	PublicationLanguage string
	Title               string
	// PublicationDate is parsed like LastMod; PublicationDateRaw keeps the
	// text as written.
	PublicationDate    time.Time
	PublicationDateRaw string
	Keywords           string
	Genres             string
	Access             string
	StockTickers       string
}

// Video is one <video:video> of Google's video sitemap extension. Values
// are kept as written; Tags holds every <video:tag>.
type Video struct {
	ThumbnailLoc         string
	Title                string
	Description          string
	ContentLoc           string
	PlayerLoc            string
	Duration             string
	ExpirationDate       string
	Rating               string
	ViewCount            string
	PublicationDate      string
	FamilyFriendly       string
	Restriction          string
	Platform             string
	RequiresSubscription string
	Uploader             string
	Live                 string
	Category             string
	Tags                 []string
}

// Alternate is one <xhtml:link rel="alternate"> of a <url>: the same page
// in another language or for another medium.
type Alternate struct {
	Href     string
	Hreflang string
	Media    string
}

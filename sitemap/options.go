package sitemap

// Scope says which URLs a sitemap may list. An entry outside its sitemap's
// scope is delivered with Problem ProblemOutOfScope and reported; the
// caller decides what to do with it.
type Scope uint8

const (
	// ScopeAuthority allows URLs with the sitemap's scheme, host and port:
	// the sensible rule for sitemaps found through a site's robots.txt.
	// It is the default.
	ScopeAuthority Scope = iota
	// ScopeDirectory is the sitemaps protocol's rule: a sitemap at
	// http://example.com/catalog/sitemap.xml may list only URLs that begin
	// with http://example.com/catalog/.
	ScopeDirectory
	// ScopeNone allows any http or https URL.
	ScopeNone
)

// String returns "authority", "directory" or "none".
func (s Scope) String() string {
	switch s {
	case ScopeDirectory:
		return "directory"
	case ScopeNone:
		return "none"
	}
	return "authority"
}

// Defaults of the limits; each has an option to change it.
const (
	// DefaultMaxURLs is the protocol's limit of entries in one file.
	DefaultMaxURLs = 50_000
	// DefaultMaxBytes is the protocol's limit of 50 MiB, uncompressed.
	DefaultMaxBytes = 50 << 20
	// DefaultMaxLocLength is the protocol's limit on a URL's length.
	DefaultMaxLocLength = 2048
	// DefaultMaxProblems is how many problems a Report keeps in full.
	DefaultMaxProblems = 100
	// DefaultMaxDepth is how many levels of index Walk follows below a
	// root: a root is at depth 0, the sitemaps it lists at depth 1.
	DefaultMaxDepth = 5
	// DefaultMaxSitemaps is how many sitemaps one Walk fetches at most.
	DefaultMaxSitemaps = 1000
)

// Internal bounds against hostile input; no sitemap comes near them.
const (
	maxTokenBytes = 1 << 20 // one XML token
	maxNesting    = 64      // XML element depth
	maxFieldBytes = 8 << 10 // a text field other than loc
	maxExtensions = 1000    // images, videos, alternates, tags per <url>
)

type config struct {
	maxURLs     int
	maxBytes    int64
	maxLoc      int
	maxProblems int
	base        string
	scope       Scope
	maxDepth    int
	maxSitemaps int
}

func newConfig(opts []Option) config {
	c := config{
		maxURLs:     DefaultMaxURLs,
		maxBytes:    DefaultMaxBytes,
		maxLoc:      DefaultMaxLocLength,
		maxProblems: DefaultMaxProblems,
		scope:       ScopeAuthority,
		maxDepth:    DefaultMaxDepth,
		maxSitemaps: DefaultMaxSitemaps,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Option changes a setting of Parse or Walk.
type Option func(*config)

// WithMaxURLs sets how many entries one document may list (default
// DefaultMaxURLs); the first entry past it is reported and the parse stops.
// n <= 0 keeps the default.
func WithMaxURLs(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxURLs = n
		}
	}
}

// WithMaxBytes sets how many uncompressed bytes of one document are read
// (default DefaultMaxBytes). Decompression stops there, so a gzip bomb
// costs no more than the limit. n <= 0 keeps the default.
func WithMaxBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// WithMaxLocLength sets the longest loc, in characters (default
// DefaultMaxLocLength). n <= 0 keeps the default.
func WithMaxLocLength(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxLoc = n
		}
	}
}

// WithMaxProblems sets how many problems a Report keeps in full (default
// DefaultMaxProblems); the rest are only counted. n < 0 keeps the default.
func WithMaxProblems(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.maxProblems = n
		}
	}
}

// WithBase gives Parse the sitemap's own URL: relative locs are resolved
// against it, scope is checked against it, and entries carry it in
// Entry.Sitemap. Without it no scope is checked and relative locs are
// invalid. Walk sets it for every sitemap it fetches and ignores this
// option.
func WithBase(sitemapURL string) Option {
	return func(c *config) { c.base = sitemapURL }
}

// WithScope sets which URLs a sitemap may list (default ScopeAuthority).
// Walk applies it to child sitemaps as well as to URLs.
func WithScope(s Scope) Option {
	return func(c *config) { c.scope = s }
}

// WithMaxDepth sets how many levels of sitemap index Walk follows below a
// root (default DefaultMaxDepth). n < 0 keeps the default; 0 reads the
// roots only.
func WithMaxDepth(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.maxDepth = n
		}
	}
}

// WithMaxSitemaps sets how many sitemaps one Walk fetches at most, roots
// included (default DefaultMaxSitemaps). n <= 0 keeps the default.
func WithMaxSitemaps(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxSitemaps = n
		}
	}
}

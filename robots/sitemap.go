package robots

import "net/url"

// isAbsoluteURL reports whether v parses as a URL with a scheme.
func isAbsoluteURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && u.Scheme != ""
}

// Sitemaps returns the file's Sitemap lines in order, values as written.
// Relative is set for values that are not absolute URLs.
func (f *File) Sitemaps() []Sitemap {
	return append([]Sitemap(nil), f.sitemaps...)
}

// ResolveSitemaps returns the Sitemap URLs made absolute against base, the
// URL the robots.txt was fetched from. Absolute values are returned as
// written; relative ones are resolved and keep Relative set so that the
// caller can say so. With a nil base, relative values are returned as
// written. Values that are not URLs at all are left out (Lint reports
// them).
func (f *File) ResolveSitemaps(base *url.URL) []Sitemap {
	out := make([]Sitemap, 0, len(f.sitemaps))
	for _, s := range f.sitemaps {
		u, err := url.Parse(s.URL)
		if err != nil {
			continue
		}
		if s.Relative && base != nil {
			s.URL = base.ResolveReference(u).String()
		}
		out = append(out, s)
	}
	return out
}

// Report says how the file was read.
func (f *File) Report() Report {
	r := f.report
	r.Skipped = append([]SkippedLine(nil), r.Skipped...)
	r.InvalidCrawlDelays = append([]SkippedLine(nil), r.InvalidCrawlDelays...)
	if r.Truncated != nil {
		t := *r.Truncated
		r.Truncated = &t
	}
	return r
}

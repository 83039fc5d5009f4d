package discovery

import (
	"regexp"
	"testing"
	"time"

	"github.com/heedcrawl/heed/sitemap"
)

func TestEntryFilter(t *testing.T) {
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := &Config{
		Since:   since,
		Include: []*regexp.Regexp{regexp.MustCompile(`/(news|blog)/`)},
		Exclude: []*regexp.Regexp{regexp.MustCompile(`/draft`)},
	}
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		loc     string
		lastmod time.Time
		raw     string
		want    string
	}{
		{"https://a.test/news/1", day(2026, 3, 1), "2026-03-01", ""},
		{"https://a.test/news/2", since, "2026-01-01", ""}, // at since: kept
		{"https://a.test/news/3", since.Add(-time.Second), "2025-12-31T23:59:59Z", "lastmod 2025-12-31T23:59:59Z is before 2026-01-01T00:00:00Z"},
		{"https://a.test/news/4", time.Time{}, "", ""},             // no lastmod: kept
		{"https://a.test/news/5", time.Time{}, "last tuesday", ""}, // unreadable: kept
		{"https://a.test/blog/draft-1", day(2026, 2, 1), "2026-02-01", "matches sitemap exclude pattern /draft"},
		{"https://a.test/shop/1", day(2026, 2, 1), "2026-02-01", "matches no sitemap include pattern"},
	}
	for _, tt := range tests {
		got := cfg.Refuses(sitemap.Entry{Loc: tt.loc, LastMod: tt.lastmod, LastModRaw: tt.raw})
		if got != tt.want {
			t.Errorf("%s (%q): %q, want %q", tt.loc, tt.raw, got, tt.want)
		}
	}
}

func TestSitemapRulesPickCallbacks(t *testing.T) {
	cfg := &Config{Rules: []Rule{
		{regexp.MustCompile(`/product/`), "product"},
		{regexp.MustCompile(`/product/|/p/`), "never-first"},
		{regexp.MustCompile(`/blog/`), ""},
	}}
	tests := []struct {
		loc, callback string
		ok            bool
	}{
		{"https://a.test/product/1", "product", true},
		{"https://a.test/p/1", "never-first", true},
		{"https://a.test/blog/x", "", true},
		{"https://a.test/about", "", false},
	}
	for _, tt := range tests {
		cb, ok := cfg.callback(tt.loc)
		if cb != tt.callback || ok != tt.ok {
			t.Errorf("%s: %q %v, want %q %v", tt.loc, cb, ok, tt.callback, tt.ok)
		}
	}
	if cb, ok := (&Config{}).callback("https://a.test/x"); cb != "" || !ok {
		t.Errorf("without rules: %q %v, want the default handler", cb, ok)
	}
}

func TestFormatPriority(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		has  bool
		want string
	}{{1, true, "1.0"}, {0.5, true, "0.5"}, {0.85, true, "0.85"}, {0, true, "0.0"}, {0, false, ""}} {
		if got := FormatPriority(sitemap.Entry{Priority: tt.p, HasPriority: tt.has}); got != tt.want {
			t.Errorf("%v %v: %q, want %q", tt.p, tt.has, got, tt.want)
		}
	}
}

package robots

import (
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ruleLines returns "line:pattern" for every rule of f in order.
func ruleLines(f *File) []string {
	var out []string
	for _, r := range f.rules {
		kind := "D"
		if r.Allow {
			kind = "A"
		}
		out = append(out, strconv.Itoa(r.Line)+":"+kind+":"+r.Pattern)
	}
	return out
}

func TestParseLineEndsAndNumbers(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"LF", "User-agent: *\nDisallow: /a\n\nAllow: /b\n", []string{"2:D:/a", "4:A:/b"}},
		{"CRLF", "User-agent: *\r\nDisallow: /a\r\n\r\nAllow: /b\r\n", []string{"2:D:/a", "4:A:/b"}},
		{"CR", "User-agent: *\rDisallow: /a\r\rAllow: /b\r", []string{"2:D:/a", "4:A:/b"}},
		{"no final line end", "User-agent: *\nDisallow: /a\n\nAllow: /b", []string{"2:D:/a", "4:A:/b"}},
		{"mixed", "User-agent: *\r\nDisallow: /a\r\rAllow: /b\nAllow: /c\r\n\nDisallow: /d", []string{"2:D:/a", "4:A:/b", "5:A:/c", "7:D:/d"}},
		{"LF CR is two line ends", "User-agent: *\n\rDisallow: /a\n", []string{"3:D:/a"}},
		{"BOM", "\xEF\xBB\xBFUser-agent: *\nDisallow: /a\n", []string{"2:D:/a"}},
		{"BOM CRLF", "\xEF\xBB\xBFUser-agent: *\r\nDisallow: /a\r\n", []string{"2:D:/a"}},
		{"partial BOM", "\xEF\xBBUser-agent: *\nDisallow: /a\n", []string{"2:D:/a"}},
		{"comments", "# head\nUser-agent: * # all\nDisallow: /a#b\n#Disallow: /c\n", []string{"3:D:/a"}},
		{"white space around colon", "User-agent :  *  \n Disallow\t:\t/a \t\n", []string{"2:D:/a"}},
		{"field names any case", "USER-AGENT: *\ndIsAlLoW: /a\nALLOW: /b\n", []string{"2:D:/a", "3:A:/b"}},
		{"no colon, two words", "user-agent FooBot\ndisallow /\nallow\t/x\n", []string{"2:D:/", "3:A:/x"}},
		{"empty values are no rules", "User-agent: *\nDisallow:\nAllow:\nDisallow: /a\n", []string{"4:D:/a"}},
		{"missing slash kept as written", "User-agent: *\nDisallow: fish\nDisallow: *.gif$\n", []string{"2:D:fish", "3:D:*.gif$"}},
		{"pattern normalised", "User-agent: *\nDisallow: /ツ/%7e/%2f\n", []string{"2:D:/%E3%83%84/~/%2F"}},
		{"rules before user-agent", "Disallow: /a\nAllow: /b\nUser-agent: *\nDisallow: /c\n", []string{"4:D:/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ruleLines(Parse([]byte(tt.body)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rules = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseRuleText(t *testing.T) {
	f := Parse([]byte("User-agent: *\n  Disallow :  /private/   # keep out\n"))
	if len(f.rules) != 1 {
		t.Fatalf("rules = %d", len(f.rules))
	}
	if got, want := f.rules[0].Text, "Disallow :  /private/"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestParseFieldSpellings(t *testing.T) {
	tests := []struct {
		name string
		f    field
		typo bool
	}{
		{"User-agent", fieldUserAgent, false},
		{"USERAGENT", fieldUserAgent, true},
		{"user agent", fieldUserAgent, true},
		{"User-Agents", fieldUserAgent, true},
		{"Allow", fieldAllow, false},
		{"disallow", fieldDisallow, false},
		{"dissallow", fieldDisallow, true},
		{"disalow", fieldDisallow, true},
		{"Disallaw", fieldDisallow, true},
		{"dissalow", fieldDisallow, true},
		{"crawl-delay", fieldCrawlDelay, false},
		{"crawldelay", fieldCrawlDelay, true},
		{"crawl delay", fieldCrawlDelay, true},
		{"Sitemap", fieldSitemap, false},
		{"site-map", fieldSitemap, true},
		{"noindex", fieldUnknown, false},
		{"a-very-long-unknown-field-name", fieldUnknown, false},
	}
	for _, tt := range tests {
		f, typo := lookupField(tt.name)
		if f != tt.f || typo != tt.typo {
			t.Errorf("lookupField(%q) = %v, %v; want %v, %v", tt.name, f, typo, tt.f, tt.typo)
		}
	}
	// Misspellings work end to end.
	f := Parse([]byte("useragent: a\ndissallow: /1\nuser agent: b\ndisalow: /2\nuser-agents: c\ndisallaw: /3\n"))
	if got := ruleLines(f); len(got) != 3 || len(f.groups) != 3 {
		t.Errorf("rules %q, groups %d", got, len(f.groups))
	}
}

func TestParseSkipped(t *testing.T) {
	body := "Disallow: /early\nUser-agent: *\nfoo bar baz\nNoindex: /x\nCrawl-delay: abc\nSitemap:\n:nothing\nDisallow: /ok\n"
	r := Parse([]byte(body)).Report()
	want := []SkippedLine{
		{1, "Disallow: /early", SkipOutsideGroup},
		{3, "foo bar baz", SkipUnparseable},
		{4, "Noindex: /x", SkipUnknownField},
		{5, "Crawl-delay: abc", SkipBadCrawlDelay},
		{6, "Sitemap:", SkipEmptySitemap},
		{7, ":nothing", SkipUnparseable},
	}
	if !reflect.DeepEqual(r.Skipped, want) {
		t.Errorf("Skipped = %+v\nwant %+v", r.Skipped, want)
	}
	if r.Lines != 8 || r.Groups != 1 || r.Rules != 1 {
		t.Errorf("Lines %d Groups %d Rules %d", r.Lines, r.Groups, r.Rules)
	}
	if len(r.InvalidCrawlDelays) != 1 || r.InvalidCrawlDelays[0].Line != 5 {
		t.Errorf("InvalidCrawlDelays = %+v", r.InvalidCrawlDelays)
	}
}

func TestParseGroups(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		groups [][]string // agent values per group
	}{
		{"consecutive agents", "User-agent: a\nUser-agent: b\nDisallow: /\n", [][]string{{"a", "b"}}},
		{"rule starts a new group", "User-agent: a\nDisallow: /\nUser-agent: b\nDisallow: /\n", [][]string{{"a"}, {"b"}}},
		{"empty rule starts a new group", "User-agent: a\nDisallow:\nUser-agent: b\nDisallow: /\n", [][]string{{"a"}, {"b"}}},
		{"blank line does not end the run", "User-agent: a\n\nUser-agent: b\nDisallow: /\n", [][]string{{"a", "b"}}},
		{"sitemap does not end the run", "User-agent: alphabot\nSitemap: https://www.example.com/sitemap.xml\n\nUser-agent: betabot\nDisallow: /\n", [][]string{{"alphabot", "betabot"}}},
		{"unknown field does not end the run", "User-agent: a\nFoo: bar\nUser-agent: b\nDisallow: /\n", [][]string{{"a", "b"}}},
		{"crawl-delay does not end the run", "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /\n", [][]string{{"a", "b"}}},
		{"crawl-delay after rules stays", "User-agent: a\nDisallow: /\nCrawl-delay: 3\nUser-agent: b\n", [][]string{{"a"}, {"b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.body))
			var got [][]string
			for i := range f.groups {
				var v []string
				for _, a := range f.agentsOf(&f.groups[i]) {
					v = append(v, a.Value)
				}
				got = append(got, v)
			}
			if !reflect.DeepEqual(got, tt.groups) {
				t.Errorf("groups = %q, want %q", got, tt.groups)
			}
		})
	}
}

func TestAgentToken(t *testing.T) {
	tests := []struct {
		value string
		star  bool
		token string
	}{
		{"*", true, ""},
		{"* extra", true, ""},
		{"*bot", false, ""},
		{"FooBot", false, "FooBot"},
		{"FooBot/1.2", false, "FooBot"},
		{"Foo Bar", false, "Foo"},
		{"Foo_bar-baz2", false, "Foo_bar-baz2"},
		{"MJ12bot", false, "MJ12bot"},
		{"360Spider/2.0", false, "360Spider"},
		{"", false, ""},
		{"ツbot", false, ""},
	}
	for _, tt := range tests {
		star, tok := agentToken(tt.value)
		if star != tt.star || tok != tt.token {
			t.Errorf("agentToken(%q) = %v, %q; want %v, %q", tt.value, star, tok, tt.star, tt.token)
		}
	}
}

func TestParseCrawlDelay(t *testing.T) {
	tests := []struct {
		v     string
		d     time.Duration
		valid bool
	}{
		{"10", 10 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{".5", 500 * time.Millisecond, true},
		{"5.", 5 * time.Second, true},
		{"0", 0, true},
		{"abc", 0, false},
		{"-1", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"+Inf", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{"1.2.3", 0, false},
		{".", 0, false},
		{"", 0, false},
		{"10s", 0, false},
		// Past what a Duration holds: the longest delay, never none.
		{"99999999999999999999", time.Duration(math.MaxInt64), true},
		{"100000000000", time.Duration(math.MaxInt64), true},
		{"9223372036.854775807", time.Duration(math.MaxInt64), true},
	}
	for _, tt := range tests {
		d, why := parseCrawlDelay(tt.v)
		if (why == "") != tt.valid || d != tt.d {
			t.Errorf("parseCrawlDelay(%q) = %v, %q; want %v valid=%v", tt.v, d, why, tt.d, tt.valid)
		}
	}
}

func TestParseTruncation(t *testing.T) {
	const limit = DefaultMaxBytes
	head := "User-agent: *\nDisallow: /kept\n"
	pad := func(n int) string { // comment lines filling n bytes exactly
		var b strings.Builder
		for b.Len() < n {
			line := "# " + strings.Repeat("x", min(70, n-b.Len()-3)) + "\n"
			if n-b.Len() < 4 {
				line = strings.Repeat("\n", n-b.Len())
			}
			b.WriteString(line)
		}
		return b.String()
	}
	t.Run("rule after the limit", func(t *testing.T) {
		body := head + pad(limit-len(head)) + "Disallow: /late\n"
		f := Parse([]byte(body))
		if got := ruleLines(f); len(got) != 1 || !strings.HasSuffix(got[0], "/kept") {
			t.Fatalf("rules = %q", got)
		}
		tr := f.Report().Truncated
		if tr == nil || tr.BytesIgnored != len("Disallow: /late\n") || tr.LineCut || tr.Line != f.Report().Lines+1 || tr.Limit != limit {
			t.Fatalf("Truncated = %+v, lines %d", tr, f.Report().Lines)
		}
	})
	t.Run("line cut by the limit is dropped", func(t *testing.T) {
		body := head + pad(limit-len(head)-5) + "Disallow: /cut\n"
		f := Parse([]byte(body))
		if got := ruleLines(f); len(got) != 1 {
			t.Fatalf("rules = %q", got)
		}
		tr := f.Report().Truncated
		if tr == nil || !tr.LineCut || tr.Line != f.Report().Lines+1 {
			t.Fatalf("Truncated = %+v, lines %d", tr, f.Report().Lines)
		}
	})
	t.Run("line ending at the limit is kept", func(t *testing.T) {
		rule := "Disallow: /edge"
		body := head + pad(limit-len(head)-len(rule)) + rule + "\nDisallow: /late\n"
		f := Parse([]byte(body))
		if got := ruleLines(f); len(got) != 2 || !strings.HasSuffix(got[1], "/edge") {
			t.Fatalf("rules = %q", got)
		}
		if tr := f.Report().Truncated; tr == nil || tr.LineCut {
			t.Fatalf("Truncated = %+v", tr)
		}
	})
	t.Run("CR LF split by the limit", func(t *testing.T) {
		rule := "Disallow: /edge\r"
		body := head + pad(limit-len(head)-len(rule)) + rule + "\nDisallow: /late\r\n"
		f := Parse([]byte(body))
		if got := ruleLines(f); len(got) != 2 {
			t.Fatalf("rules = %q", got)
		}
	})
	t.Run("WithMaxBytes raises the limit", func(t *testing.T) {
		body := head + pad(limit-len(head)) + "Disallow: /late\n"
		f := Parse([]byte(body), WithMaxBytes(limit+1024))
		if got := ruleLines(f); len(got) != 2 || f.Report().Truncated != nil {
			t.Fatalf("rules = %q, truncated %+v", got, f.Report().Truncated)
		}
	})
	t.Run("WithMaxBytes cannot lower the limit", func(t *testing.T) {
		body := head + pad(1000) + "Disallow: /late\n"
		f := Parse([]byte(body), WithMaxBytes(10))
		if got := ruleLines(f); len(got) != 2 || f.Report().Truncated != nil {
			t.Fatalf("rules = %q", got)
		}
	})
}

func TestParseSitemaps(t *testing.T) {
	body := "Sitemap: https://example.com/a.xml\nUser-agent: *\nsite-map: /b.xml\nDisallow: /\nSitemap: sitemaps/c.xml # c\nSitemap: http://[::1\n"
	f := Parse([]byte(body))
	want := []Sitemap{
		{"https://example.com/a.xml", 1, false},
		{"/b.xml", 3, true},
		{"sitemaps/c.xml", 5, true},
		{"http://[::1", 6, true},
	}
	if got := f.Sitemaps(); !reflect.DeepEqual(got, want) {
		t.Errorf("Sitemaps = %+v\nwant %+v", got, want)
	}
	base, _ := url.Parse("https://example.com/robots.txt")
	wantResolved := []Sitemap{
		{"https://example.com/a.xml", 1, false},
		{"https://example.com/b.xml", 3, true},
		{"https://example.com/sitemaps/c.xml", 5, true},
	}
	if got := f.ResolveSitemaps(base); !reflect.DeepEqual(got, wantResolved) {
		t.Errorf("ResolveSitemaps = %+v\nwant %+v", got, wantResolved)
	}
	if got := f.ResolveSitemaps(nil); len(got) != 3 || got[1].URL != "/b.xml" {
		t.Errorf("ResolveSitemaps(nil) = %+v", got)
	}
}

func TestNormalise(t *testing.T) {
	// path is the URL side, pattern the rule side (RFC 9309 §2.2.2 and
	// §2.2.3): they differ only in "*" and "$".
	tests := []struct{ in, path, pattern string }{
		{"/a/b", "/a/b", "/a/b"},
		{"/%7Ea", "/~a", "/~a"},
		{"/%7ea", "/~a", "/~a"},
		{"/%62%61%7A", "/baz", "/baz"},
		{"/a%2Fb", "/a%2Fb", "/a%2Fb"},
		{"/a%2fb", "/a%2Fb", "/a%2Fb"},
		{"/%aa", "/%AA", "/%AA"},
		{"/ツ", "/%E3%83%84", "/%E3%83%84"},
		{"/á", "/%C3%A1", "/%C3%A1"},
		{"/a b", "/a%20b", "/a%20b"},
		{"/%", "/%", "/%"},
		{"/%4", "/%4", "/%4"},
		{"/%zz", "/%zz", "/%zz"},
		{"/100%", "/100%", "/100%"},
		{"/%25", "/%25", "/%25"},
		// §2.2.3: in a URL "*" and "$" are literals, compared encoded; in
		// a pattern "*" is the wildcard, a final "$" the anchor, and any
		// other "$" a literal.
		{"/*$", "/%2A%24", "/*$"},
		{"/%2A", "/%2A", "/%2A"},
		{"/%2a", "/%2A", "/%2A"},
		{"/%24", "/%24", "/%24"},
		{"/a$b", "/a%24b", "/a%24b"},
		{"/a$b$", "/a%24b%24", "/a%24b$"},
		// Characters a URL carries only encoded are compared encoded.
		{"/a<b", "/a%3Cb", "/a%3Cb"},
		{`/a"b>{c}|d\e^f` + "`", "/a%22b%3E%7Bc%7D%7Cd%5Ce%5Ef%60", "/a%22b%3E%7Bc%7D%7Cd%5Ce%5Ef%60"},
		{"/a%3cb", "/a%3Cb", "/a%3Cb"},
		// A pattern without a leading "/" is kept as written.
		{"private", "private", "private"},
	}
	for _, tt := range tests {
		if got := normalise(tt.in); got != tt.path {
			t.Errorf("normalise(%q) = %q, want %q", tt.in, got, tt.path)
		}
		if isCanonical(tt.in) != (tt.in == tt.path) {
			t.Errorf("isCanonical(%q) = %v", tt.in, isCanonical(tt.in))
		}
		if got := normalisePattern(tt.in); got != tt.pattern {
			t.Errorf("normalisePattern(%q) = %q, want %q", tt.in, got, tt.pattern)
		}
		if isCanonicalPattern(tt.in) != (tt.in == tt.pattern) {
			t.Errorf("isCanonicalPattern(%q) = %v", tt.in, isCanonicalPattern(tt.in))
		}
	}
}

package robots

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type lintHit struct {
	line int
	code string
}

func hits(fs []Finding, code string) []lintHit {
	var out []lintHit
	for _, f := range fs {
		if code == "" || f.Code == code {
			out = append(out, lintHit{f.Line, f.Code})
		}
	}
	return out
}

func TestLint(t *testing.T) {
	tests := []struct {
		name string
		body string
		code string
		want []lintHit
		// msg, when set, must appear in the first finding's message.
		msg []string
	}{
		{
			name: "named group drops star rules",
			body: "User-agent: *\nDisallow: /checkout/\nDisallow: /members/\nAllow: /public/\n\nUser-agent: GPTBot\nDisallow: /training-data/\nDisallow: /members/\n",
			code: CodeNamedGroupDropsStarRules,
			want: []lintHit{{6, CodeNamedGroupDropsStarRules}},
			msg:  []string{`"Disallow: /checkout/" (line 2)`, "GPTBot"},
		},
		{
			name: "named group that disallows everything loses nothing",
			body: "User-agent: *\nDisallow: /checkout/\n\nUser-agent: GPTBot\nDisallow: /\n",
			code: CodeNamedGroupDropsStarRules,
		},
		{
			name: "each named token is reported once, at its first line",
			body: "User-agent: *\nDisallow: /a\nUser-agent: barbot\nUser-agent: bazbot\nDisallow: /b\nUser-agent: BARBOT\nAllow: /c\n",
			code: CodeNamedGroupDropsStarRules,
			want: []lintHit{{3, CodeNamedGroupDropsStarRules}, {4, CodeNamedGroupDropsStarRules}},
		},
		{
			name: "sitemap between user-agent lines",
			body: "User-agent: alphabot\nSitemap: https://www.example.com/sitemap.xml\n\nUser-agent: betabot\nDisallow: /\n",
			code: CodeLineMergesGroups,
			want: []lintHit{{2, CodeLineMergesGroups}},
			msg:  []string{"alphabot", "betabot", "line 4"},
		},
		{
			name: "unknown field between user-agent lines",
			body: "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
			code: CodeLineMergesGroups,
			want: []lintHit{{2, CodeLineMergesGroups}},
		},
		{
			name: "crawl-delay between user-agent lines merges the groups",
			body: "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /\n",
			code: CodeLineMergesGroups,
			want: []lintHit{{2, CodeLineMergesGroups}},
			msg:  []string{"a Crawl-delay line", `"User-agent: a" (line 1)`, `"User-agent: b" (line 3)`},
		},
		{
			name: "every line between user-agent lines is reported, in every merge",
			body: "User-agent: a\nSitemap: https://e.com/s.xml\nCrawl-delay: 2\nFoo: bar\nnonsense here now\nUser-agent: b\nCrawl-delay: 3\nUser-agent: c\nDisallow: /\nUser-agent: d\nCrawl-delay: 4\n",
			code: CodeLineMergesGroups,
			want: []lintHit{{2, CodeLineMergesGroups}, {3, CodeLineMergesGroups}, {4, CodeLineMergesGroups}, {5, CodeLineMergesGroups}, {7, CodeLineMergesGroups}},
		},
		{
			name: "sitemap after rules merges nothing",
			body: "User-agent: a\nDisallow: /x\nSitemap: https://e.com/s.xml\nUser-agent: b\nDisallow: /\n",
			code: CodeLineMergesGroups,
		},
		{
			name: "blank line between user-agent lines",
			body: "User-agent: a\n\nUser-agent: b\nDisallow: /\n",
			code: CodeBlankLineMergesGroups,
			want: []lintHit{{3, CodeBlankLineMergesGroups}},
		},
		{
			name: "consecutive user-agent lines are fine",
			body: "User-agent: a\nUser-agent: b\n# comment\nUser-agent: c\nDisallow: /\n",
			code: "",
		},
		{
			name: "rules before any user-agent",
			body: "Disallow: /x\nCrawl-delay: 3\nUser-agent: *\nDisallow: /y\n",
			code: CodeRuleOutsideGroup,
			want: []lintHit{{1, CodeRuleOutsideGroup}, {2, CodeRuleOutsideGroup}},
		},
		{
			name: "path without leading slash",
			body: "User-agent: *\nDisallow: private/\nDisallow: *.gif$\n",
			code: CodeMissingLeadingSlash,
			want: []lintHit{{2, CodeMissingLeadingSlash}},
			msg:  []string{`"/private/"`, "Google's open-source matcher", "matches no URL"},
		},
		{
			name: "redundant trailing wildcard",
			body: "User-agent: *\nDisallow: /fish*\nDisallow: /a*$\nDisallow: /*.php\nDisallow: *\n",
			code: CodeRedundantWildcard,
			want: []lintHit{{2, CodeRedundantWildcard}, {3, CodeRedundantWildcard}},
			msg:  []string{`"/fish"`},
		},
		{
			name: "unknown fields",
			body: "User-agent: *\nNoindex: /x\nDisalloww: /y\nHost: example.com\n",
			code: CodeUnknownField,
			want: []lintHit{{2, CodeUnknownField}, {3, CodeUnknownField}, {4, CodeUnknownField}},
		},
		{
			name: "misspellings say what they were taken as",
			body: "Useragent: *\nDissallow: /a\nDisalow: /b\nDisallaw: /c\nDissalow: /d\nCrawldelay: 3\nCrawl delay: 4\nSite-map: https://e.com/s.xml\nUser agent: b\nuser-agents: c\nDisallow: /\n",
			code: CodeMisspelledField,
			want: []lintHit{{1, CodeMisspelledField}, {2, CodeMisspelledField}, {3, CodeMisspelledField}, {4, CodeMisspelledField}, {5, CodeMisspelledField}, {6, CodeMisspelledField}, {7, CodeMisspelledField}, {8, CodeMisspelledField}, {9, CodeMisspelledField}, {10, CodeMisspelledField}},
			msg:  []string{"User-agent"},
		},
		{
			name: "missing colon",
			body: "user-agent FooBot\ndisallow /\n",
			code: CodeMissingColon,
			want: []lintHit{{1, CodeMissingColon}, {2, CodeMissingColon}},
			msg:  []string{`"User-agent: FooBot"`},
		},
		{
			name: "unparseable lines",
			body: "User-agent: *\nthis is not a rule\n:/x\nDisallow: /\n",
			code: CodeUnparseableLine,
			want: []lintHit{{2, CodeUnparseableLine}, {3, CodeUnparseableLine}},
		},
		{
			name: "bad crawl-delays",
			body: "User-agent: *\nCrawl-delay: abc\nCrawl-delay: -1\nCrawl-delay: NaN\nCrawl-delay: Inf\nCrawl-delay: 0.5\n",
			code: CodeInvalidCrawlDelay,
			want: []lintHit{{2, CodeInvalidCrawlDelay}, {3, CodeInvalidCrawlDelay}, {4, CodeInvalidCrawlDelay}, {5, CodeInvalidCrawlDelay}},
		},
		{
			name: "sitemaps",
			body: "Sitemap: /sitemap.xml\nSitemap: https://e.com/s.xml\nSitemap: http://[::1\nSitemap:\n",
			code: "",
			want: []lintHit{{1, CodeRelativeSitemap}, {3, CodeInvalidSitemap}, {4, CodeInvalidSitemap}},
		},
		{
			name: "disallow advertises sensitive areas",
			body: "User-agent: *\nDisallow: /admin/\nDisallow: /.git\nDisallow: /backup-2024/\nDisallow: /blog/\nAllow: /admin/help\nDisallow: /wp-config.php\n",
			code: CodeSensitivePath,
			want: []lintHit{{2, CodeSensitivePath}, {3, CodeSensitivePath}, {4, CodeSensitivePath}, {7, CodeSensitivePath}},
		},
		{
			name: "case-sensitive paths",
			body: "User-agent: *\nDisallow: /Photo\nDisallow: /photo\nDisallow: /%C3%A9\n",
			code: CodeCaseSensitivePath,
			want: []lintHit{{2, CodeCaseSensitivePath}},
			msg:  []string{`"/photo"`},
		},
		{
			name: "user-agent values that are not tokens",
			body: "User-agent: FooBot/1.2\nUser-agent: Foo Bar\nUser-agent: *bot\nUser-agent: *\nUser-agent: Good_bot-2\nDisallow: /\n",
			code: CodeUserAgentNotToken,
			want: []lintHit{{1, CodeUserAgentNotToken}, {2, CodeUserAgentNotToken}, {3, CodeUserAgentNotToken}},
		},
		{
			name: "user-agent names with digits",
			body: "User-agent: MJ12bot\nUser-agent: 360Spider\nUser-agent: Good_bot-2/1.0\nUser-agent: FooBot\nDisallow: /\n",
			code: CodeAgentWithDigits,
			want: []lintHit{{1, CodeAgentWithDigits}, {2, CodeAgentWithDigits}, {3, CodeAgentWithDigits}},
			msg:  []string{`"MJ12bot"`, "whole token", "RFC-strict", `Google's open-source parser reads it as "MJ"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Lint([]byte(tt.body))
			got := hits(fs, tt.code)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("findings %v, want %v\nall: %v", got, tt.want, fs)
			}
			for _, m := range tt.msg {
				var first Finding
				for _, f := range fs {
					if f.Code == tt.code {
						first = f
						break
					}
				}
				if !strings.Contains(first.Message, m) {
					t.Errorf("message %q does not mention %q", first.Message, m)
				}
			}
		})
	}
}

func TestLintDroppedRulesRelated(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "Disallow: /p%d/\n", i)
	}
	b.WriteString("User-agent: FooBot\nDisallow: /p3/\n")
	var f Finding
	for _, x := range Lint([]byte(b.String())) {
		if x.Code == CodeNamedGroupDropsStarRules {
			f = x
		}
	}
	if f.Line != 32 || len(f.Related) != 29 || f.Related[0] != 2 || f.Related[3] != 6 {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(f.Message, "and 19 more") || strings.Contains(f.Message, `"Disallow: /p3/"`) {
		t.Errorf("message %q", f.Message)
	}
}

func TestLintContentPastLimit(t *testing.T) {
	body := "User-agent: *\nDisallow: /a\n" + strings.Repeat("# padding padding padding\n", DefaultMaxBytes/26+10) + "Disallow: /late\n"
	fs := hits(Lint([]byte(body)), CodeContentPastLimit)
	r := Parse([]byte(body)).Report()
	if len(fs) != 1 || r.Truncated == nil || fs[0].line != r.Truncated.Line {
		t.Fatalf("findings %v, truncation %+v", fs, r.Truncated)
	}
	if got := hits(Lint([]byte(body), WithMaxBytes(len(body))), CodeContentPastLimit); len(got) != 0 {
		t.Fatalf("with a raised limit: %v", got)
	}
}

func TestLintEveryCodeTested(t *testing.T) {
	// Each code must be produced by some input here, so that a new code
	// cannot be added without a test that shows it.
	inputs := []string{
		"User-agent: *\nDisallow: /a\nUser-agent: b\nDisallow: /c\n",
		"User-agent: a\nSitemap: https://e.com/s\nUser-agent: b\nDisallow: /\n",
		"User-agent: a\n\nUser-agent: b\nDisallow: /\n",
		"Disallow: /\n",
		"User-agent: *\nDisallow: x\nDisallow: /y*\nNoindex: /\nDissallow: /z\ndisallow /q\nfoo bar baz\nCrawl-delay: x\n",
		"Sitemap: /s.xml\nSitemap: http://[::1\nUser-agent: a/1\nDisallow: /admin\nDisallow: /Photo\n",
		"User-agent: *\n" + strings.Repeat("Disallow: /p\n", DefaultMaxBytes/13+1),
	}
	seen := map[string]bool{}
	for _, in := range inputs {
		for _, f := range Lint([]byte(in)) {
			seen[f.Code] = true
			if f.Line < 1 || f.Message == "" || (f.Severity != Warning && f.Severity != Info) {
				t.Errorf("malformed finding %+v", f)
			}
		}
	}
	for _, code := range []string{
		CodeNamedGroupDropsStarRules, CodeLineMergesGroups, CodeBlankLineMergesGroups, CodeRuleOutsideGroup,
		CodeMissingLeadingSlash, CodeRedundantWildcard, CodeUnknownField, CodeMisspelledField, CodeMissingColon,
		CodeUnparseableLine, CodeContentPastLimit, CodeInvalidCrawlDelay, CodeRelativeSitemap, CodeInvalidSitemap,
		CodeSensitivePath, CodeCaseSensitivePath, CodeUserAgentNotToken,
	} {
		if !seen[code] {
			t.Errorf("no input produces %s", code)
		}
	}
}

func TestLintOrderAndString(t *testing.T) {
	fs := Lint([]byte("User-agent: *\nDisallow: /admin\nDisallow: x\nDisallow: /b\nUser-agent: foo\nDisallow: /c\n"))
	for i := 1; i < len(fs); i++ {
		if fs[i].Line < fs[i-1].Line {
			t.Fatalf("not ordered by line: %v", fs)
		}
	}
	f := Finding{Line: 4, Code: CodeUnknownField, Severity: Info, Message: "m"}
	if got, want := f.String(), fmt.Sprintf("line 4: info: m [%s]", CodeUnknownField); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

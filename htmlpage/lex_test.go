package htmlpage

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lexTags is the start tags a lexer finds, written out for comparison.
func lexTags(body []byte) []string {
	var out []string
	l := lexer{b: body}
	for l.next() {
		out = append(out, tagString(&l.tag))
	}
	return out
}

// tokenTags is the start tags the tokenizer finds (scanTokens).
func tokenTags(body []byte) []string {
	var out []string
	scanTokens(body, func(t *startTag) { out = append(out, tagString(t)) })
	return out
}

func tagString(t *startTag) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d <%s", t.start, bytes.ToLower(t.name))
	for _, a := range t.attrs[:t.n] {
		fmt.Fprintf(&b, " %s=%q", bytes.ToLower(a.key), a.value())
	}
	return b.String()
}

// lexCases are the tokenizer's states one by one: each must give the
// start tags the tokenizer gives.
var lexCases = []string{
	`<a href=/x>`,
	`<A HREF="/X" Src='/s'>`,
	`<a href="/1" HREF="/2" href=/3 src=a src=b>`,
	`<a/href=/x>`, `<a href/>`, `<a href= / >`, `<a href = "/sp" >`,
	`<a =href=/eq>`, `<a href=>`, `<a href=/a>b>`, `<a href='/q">'>`, `<a href="/q'>">`,
	`<a href=/u"v'w>`, `<a x=1 y z href=/late>`, `<a	href=/tab>`, "<a\nhref=/nl>",
	`<a href="/&amp;?a=1&b=2&amp=3&ampx;&#65;">`,
	`<a href="/s?q=heed&amp;page=2" onclick="a&&b">`, `<a href="/&ampx;&notit;&semi;&NotEqualTilde;&Amp;&;&&#;&#x41&#65">`,
	`<a href="/&lt;&gt;&quot;&apos;&nbsp;&AMP;&copy;&zzzz;&x1;">`, `<a href="&"><a href="/&amp"><a href="/&ampy">`,
	"<a href=\"/&amp;\r\n&lt;\r&gt;\">", `<a href=/&amp;x src=/&ltz=1>`, `<meta name="&amp;" content="&notin;&not=1">`,
	`<base href="/&amp;/"><a href="/&amp;" href="/&amp">`, "<a href=\"/cr\r\nlf\rx\">", "<a href=/cr\r>",
	`<a href="/open`, `<a href=/open`, `<a href`, `<a`, `<`, `</`, `<!`, `<!-`, `<!--`,
	`</a href=">"><a href=/after-end>`, `</><a href=/y>`, `</ a><a href=/y>`, `</1><a href=/y>`,
	`<?php echo "<a href=/no>" ?><a href=/yes>`, `<?x>`,
	`<!doctype html><a href=/d>`, `<!DOCTYPE>`, `<!DOC`, `<!x <a href=/no>> <a href=/yes>`, `<!>`, `<!><a href=/y>`,
	`<!-- <a href=/no> --><a href=/yes>`, `<!--><a href=/y>`, `<!---><a href=/y>`, `<!----><a href=/y>`,
	`<!-- --!><a href=/y>`, `<!-- --!-><a href=/n>--><a href=/y>`, `<!-- --!x><a href=/n>--><a href=/y>`,
	`<!-- -- ><a href=/n>--><a href=/y>`, `<!-- - -><a href=/n>--><a href=/y>`, `<!--a--!`,
	`<title><a href=/no></TITLE ><a href=/yes>`, `<title><a href=/no></titlex><a href=/no2></title/>`,
	`<textarea></textare</textarea><a href=/y>`, `<style></style`, `<xmp><a href=/n></xmp><a href=/y>`,
	`<iframe><a href=/n></iframe><a href=/y>`, `<noscript><a href=/n></noscript><a href=/y>`,
	`<noembed><a href=/n></noembed>`, `<noframes><a href=/n></noframes><a href=/y>`,
	`<plaintext><a href=/n></plaintext><a href=/n2>`, `<title/><a href=/n></title>`,
	`<script><a href=/n></script><a href=/y>`, `<SCRIPT>x</Script\n><a href=/y>`,
	`<script><!--</script><a href=/y>`, `<script><!--<script></script><a href=/n>--></script><a href=/y>`,
	`<script><!--<script>--></script><a href=/y>`, `<script><!--<script><!--></script><a href=/n>`,
	`<script><!--<scriptx></script><a href=/y>`, `<script><!--<s></script><a href=/y>`,
	`<script><!- </script><a href=/y>`, `<script><!--<script></scrip></script>--></script><a href=/y>`,
	`<script><!--<script>---></script><a href=/y>`, `<script><!--<script>-<</script>--></script><a href=/y>`,
	`<script><!---><a href=/n></script><a href=/y>`, `<script><</script><a href=/y>`, `<script></`,
	`<meta name=robots content=noindex><META CONTENT="nofollow" NAME="HeedBot">`,
	`<meta charset=utf-8><meta name="x&#114;" content="a&amp;b"><base href=/b/>`,
	`<div class="a>b"><a href=/in-div>`, `<img src="<a href=/no>"><a href=/y>`,
	`<a href=/x><a href=/y></a></a>`, `a < b <a href=/lt> c <= d <1 <-`,
	`<svg><a href=/svg></svg><math></math><select></select><frameset>`,
	`<AbC dEf=1><a HREF=/mixed>`, `<averyveryverylongtagnamethatneedsmorethansixteenbytes href=/x><a href=/y>`,
}

func TestLexAgreesWithTokenizer(t *testing.T) {
	for _, c := range lexCases {
		if got, want := lexTags([]byte(c)), tokenTags([]byte(c)); !slices.Equal(got, want) {
			t.Errorf("%q:\n lexer     %q\n tokenizer %q", c, got, want)
		}
	}
}

// FuzzLexAgreesWithTokenizer checks that the lexer finds the start tags
// the tokenizer finds, at the same offsets, with the same attributes,
// wherever Scan uses it (no NUL byte, under a MiB).
func FuzzLexAgreesWithTokenizer(f *testing.F) {
	for _, c := range lexCases {
		f.Add([]byte(c))
	}
	for _, tt := range scanCases {
		f.Add([]byte(tt.html))
	}
	f.Add(benchPage())
	f.Fuzz(func(t *testing.T, body []byte) {
		if bytes.IndexByte(body, 0) >= 0 || len(body) >= lexMaxBody {
			return
		}
		if got, want := lexTags(body), tokenTags(body); !slices.Equal(got, want) {
			t.Errorf("%q:\n lexer     %q\n tokenizer %q", body, got, want)
		}
	})
}

// TestScanAllocations: reading a page's links costs the links' strings
// and their slice, not a copy of the page or a string per tag.
func TestScanAllocations(t *testing.T) {
	page := benchPage()
	links := len(Scan(page, "HeedBot", DefaultMaxElements).Links)
	allocs := testing.AllocsPerRun(20, func() { Scan(page, "HeedBot", DefaultMaxElements) })
	if max := float64(links + 1); allocs > max {
		t.Errorf("Scan of a page with %d links: %.0f allocations, want at most %.0f", links, allocs, max)
	}
}

// TestScanAllocationsEscapedLinks: a link whose href holds a character
// reference ("&amp;" in a query string, as on most sites) costs its
// unescaping (html.UnescapeString's copy and its string), not a tokenizer
// of its own.
func TestScanAllocationsEscapedLinks(t *testing.T) {
	page := escapedLinksPage(100, "&amp;")
	p := Scan(page, "HeedBot", DefaultMaxElements)
	if !p.LinksOK || len(p.Links) != 100 || p.Links[0].Href != "/s?q=heed&page=2" {
		t.Fatalf("links %v ok %v", p.Links[:min(len(p.Links), 1)], p.LinksOK)
	}
	allocs := testing.AllocsPerRun(20, func() { Scan(page, "HeedBot", DefaultMaxElements) })
	if max := float64(2*len(p.Links) + 1); allocs > max {
		t.Errorf("Scan of a page with %d links holding &amp;: %.0f allocations, want at most %.0f", len(p.Links), allocs, max)
	}
}

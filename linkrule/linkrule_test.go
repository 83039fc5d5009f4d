package linkrule

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestAdmits(t *testing.T) {
	re := regexp.MustCompile
	cases := []struct {
		name string
		rule Rule
		url  string
		want bool
	}{
		{"no pattern admits all", Rule{}, "http://a.test/x", true},
		{"allow matches", Rule{Allow: []*regexp.Regexp{re(`/p/\d+$`)}}, "http://a.test/p/12", true},
		{"allow misses", Rule{Allow: []*regexp.Regexp{re(`/p/\d+$`)}}, "http://a.test/p/12?print=1", false},
		{"one allow of two", Rule{Allow: []*regexp.Regexp{re(`/q/`), re(`/p/`)}}, "http://a.test/p/1", true},
		{"deny wins over allow", Rule{Allow: []*regexp.Regexp{re(`/p/`)}, Deny: []*regexp.Regexp{re(`print`)}}, "http://a.test/p/1?print", false},
		{"domain", Rule{Domains: []string{"a.test"}}, "http://a.test/", true},
		{"subdomain", Rule{Domains: []string{"A.Test."}}, "http://www.a.test/", true},
		{"other domain", Rule{Domains: []string{"a.test"}}, "http://ba.test/", false},
		{"domain with port", Rule{Domains: []string{"a.test"}}, "http://a.test:8080/", true},
		{"unparsable URL with domains", Rule{Domains: []string{"a.test"}}, "http://a.test/%zz", false},
		{"nil allow matches nothing", Rule{Allow: []*regexp.Regexp{nil}}, "http://a.test/", false},
		{"nil deny denies nothing", Rule{Deny: []*regexp.Regexp{nil}}, "http://a.test/", true},
		{"empty domain is no domain", Rule{Domains: []string{" "}}, "http://a.test/", false},
		{"leading dot", Rule{Domains: []string{".a.test"}}, "http://www.a.test/", true},
		{"an address has no subdomains", Rule{Domains: []string{"0.0.1"}}, "http://127.0.0.1/", false},
		{"an address as itself", Rule{Domains: []string{"127.0.0.1"}}, "http://127.0.0.1:8080/", true},
	}
	for _, c := range cases {
		if got := c.rule.Admits(c.url); got != c.want {
			t.Errorf("%s: Admits(%q) = %v, want %v", c.name, c.url, got, c.want)
		}
	}
}

// TestLinksAndChoose: every link of the page once, in the order the rules
// find them;
// a restricted rule takes only the links of its region, and a link goes
// to the first rule that may take it and admits it.
func TestLinksAndChoose(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<html>
<nav><a href="/c/1">c1</a><a href="/p/9">p9 in nav</a></nav>
<main><a href="/p/1">p1</a><area href="/p/2"><a href="/c/1">again</a><a>no href</a></main>
<a href="/about">about</a></html>`))
	if err != nil {
		t.Fatal(err)
	}
	set := Set{
		{Allow: []*regexp.Regexp{regexp.MustCompile(`/p/`)}, Restrict: "main", Callback: "product"},
		{Allow: []*regexp.Regexp{regexp.MustCompile(`/c/`)}, Callback: "category"},
		{Allow: []*regexp.Regexp{regexp.MustCompile(`/p/`)}, Callback: "other"},
	}
	var got []string
	for _, l := range set.Links(doc) {
		cb := "none"
		if r := set.Choose(l, "http://a.test"+l.Href); r != nil {
			cb = r.Callback
		}
		got = append(got, l.Href+"="+cb)
	}
	want := []string{"/p/1=product", "/p/2=product", "/c/1=category", "/p/9=other", "/about=none"}
	if !slices.Equal(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
}

// TestRestrictOnly: with only restricted rules, a link outside every
// region is still returned, with no rule, so the caller accounts for it.
func TestRestrictOnly(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<main><a href="/in">in</a></main><a href="/out">out</a>`))
	if err != nil {
		t.Fatal(err)
	}
	set := Set{{Restrict: "main"}, {Restrict: "[[invalid"}}
	links := set.Links(doc)
	if len(links) != 2 || links[0].Href != "/in" || links[1].Href != "/out" {
		t.Fatalf("links %+v", links)
	}
	if set.Choose(links[0], "http://a.test/in") != &set[0] || set.Choose(links[1], "http://a.test/out") != nil {
		t.Error("the region's link is not the rule's, or the outside one is")
	}
}

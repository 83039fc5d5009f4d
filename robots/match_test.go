package robots

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func matches(pattern, path string) bool {
	r := &Rule{Pattern: pattern}
	m := compile(r)
	return m.match(path)
}

func TestMatcher(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/", "/anything", true},
		{"/fish", "/fish", true},
		{"/fish", "/fish.html", true},
		{"/fish", "/Fish", false},
		{"/fish", "/catfish", false},
		{"/fish", "/?id=fish", false},
		{"/fish*", "/fishheads", true},
		{"/fish*", "/fis", false},
		{"/*.php", "/index.php", true},
		{"/*.php", "/folder/a.php?x", true},
		{"/*.php", "/index.PHP", false},
		{"/*.php$", "/a.php", true},
		{"/*.php$", "/a.php?x", false},
		{"/*.php$", "/a.php5", false},
		{"/fish*.php", "/fishheads/catfish.php?p", true},
		{"/$", "/", true},
		{"/$", "/a", false},
		{"/a$b", "/a$b", true}, // "$" inside a pattern is a literal
		{"/a$b", "/a", false},
		{"/a$$", "/a$", true},
		{"/a$$", "/a$b", false},
		{"*", "/", true},
		{"*.gif$", "/images/cat.gif", true},
		{"*.gif$", "/images/cat.gif?x", false},
		{"/*", "/", true},
		{"/**a**b**$", "/xaybab", true},
		{"/**a**b**$", "/xaybax", true}, // the trailing "*" swallows the end
		{"/*a*b$", "/xaybax", false},
		{"/*a*b$", "/ab", true},
		{"/*ab*ab$", "/ab", false}, // segments must not overlap
		{"/*ab*ab$", "/abab", true},
		{"/*aa$", "/aaa", true},
		{"/*aa$", "/a", false},
		{"/foo/*/qux", "/foo//qux", true},
		{"/foo/*/qux", "/foo/qux", false},
		{"/x/$", "/x/", true},
		{"/x/$", "/x", false},
		{"/%2A", "/%2A", true},
		{"/%2A", "/*", false},
	}
	for _, tt := range tests {
		if got := matches(tt.pattern, tt.path); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// refMatch is an obviously correct (quadratic) matcher: dynamic
// programming over pattern and path.
func refMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	// ok[j]: pattern[:i] matches path[:j] exactly.
	ok := make([]bool, len(path)+1)
	ok[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(path)+1)
		if pattern[i] == '*' {
			seen := false
			for j := 0; j <= len(path); j++ {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(path); j++ {
				next[j] = ok[j-1] && path[j-1] == pattern[i]
			}
		}
		ok = next
	}
	if anchored {
		return ok[len(path)]
	}
	for _, v := range ok {
		if v {
			return true
		}
	}
	return false
}

func TestMatcherAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab*$/"
	gen := func(n int, alpha string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	for i := 0; i < 200000; i++ {
		pattern := "/" + gen(rng.IntN(7), alphabet)
		path := "/" + gen(rng.IntN(9), "ab$/")
		if got, want := matches(pattern, path), refMatch(pattern, path); got != want {
			t.Fatalf("match(%q, %q) = %v, reference says %v", pattern, path, got, want)
		}
	}
}

func TestMatcherPathologicalPattern(t *testing.T) {
	// 100 stars against 4 KiB: collapsed runs and greedy matching keep this
	// to one pass; a backtracking matcher would not finish.
	pattern := "/" + strings.Repeat("*", 100) + "b"
	path := "/" + strings.Repeat("a", 4096)
	if matches(pattern, path) {
		t.Fatal("matched without a b")
	}
	if !matches(pattern, path+"b") {
		t.Fatal("did not match the final b")
	}
	pattern = "/" + strings.Repeat("a*", 100) + "b$"
	if matches(pattern, path) || !matches(pattern, path+"b") {
		t.Fatal("a*a*...b$ wrong")
	}
	m := compile(&Rule{Pattern: "/" + strings.Repeat("*", 100) + "x*y$"})
	if len(m.middle) != 1 || m.last != "y" || m.prefix != "/" {
		t.Fatalf("runs of * not collapsed: %+v", m)
	}
}

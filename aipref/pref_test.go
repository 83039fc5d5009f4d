package aipref

import (
	"net/http"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		stmt            string
		trainAI, search Value
		notes           int // findings of Check
	}{
		{"train-ai=n", Disallow, Unknown, 0},
		{"train-ai=y, search=n", Allow, Disallow, 0},
		{"train-ai=n,search=y", Disallow, Allow, 0},
		{"  train-ai=n  ", Disallow, Unknown, 0},
		{"train-ai=maybe", Unknown, Unknown, 1},                               // a token, not y or n
		{`train-ai="n"`, Unknown, Unknown, 1},                                 // a string, not a token
		{"train-ai", Unknown, Unknown, 1},                                     // boolean true
		{"train-ai=?0", Unknown, Unknown, 1},                                  // boolean false
		{"train-ai=(y n)", Unknown, Unknown, 1},                               // inner list
		{"Train-AI=n", Unknown, Unknown, 1},                                   // uppercase: the dictionary does not parse
		{"train-ai=n, foo=y, bar", Disallow, Unknown, 2},                      // unknown keys ignored
		{"train-ai=y, train-ai, search=n, search=\"n\"", Unknown, Unknown, 2}, // vocab §6.6.1: the last value of a key wins
		{"train-ai;allow=n, train-ai=y", Allow, Unknown, 0},                   // vocab §6.6.2: parameters ignored
		{"train-ai=n;has;parameters=\"?\"", Disallow, Unknown, 0},             // parameters ignored
		{"", Unknown, Unknown, 0},                                             // empty dictionary
		{"train-ai=n,", Unknown, Unknown, 1},                                  // trailing comma: parse error
		{"search=y, train-ai=n, search=n", Disallow, Disallow, 0},
	}
	for _, tt := range tests {
		p := Parse(tt.stmt)
		if p.Get("train-ai") != tt.trainAI || p.Get("search") != tt.search {
			t.Errorf("Parse(%q): train-ai=%v search=%v, want %v %v", tt.stmt, p.Get("train-ai"), p.Get("search"), tt.trainAI, tt.search)
		}
		if notes := Check(tt.stmt); len(notes) != tt.notes {
			t.Errorf("Check(%q) = %q, want %d notes", tt.stmt, notes, tt.notes)
		}
	}
}

func TestVocabularyIsOneTable(t *testing.T) {
	if got := strings.Join(Labels(), ","); got != "train-ai,search" {
		t.Errorf("labels %q", got)
	}
	// A category added to the table is read by Parse with no other change.
	saved := Categories
	defer func() { Categories = saved }()
	Categories = append(append([]Category(nil), saved...), Category{Label: "x-new", Name: "test"})
	if Parse("x-new=n").Get("x-new") != Disallow || len(Check("x-new=y")) != 0 {
		t.Error("a new category line is not read")
	}
}

func TestFromHeaderAndCombine(t *testing.T) {
	h := http.Header{}
	if _, ok := FromHeader(h, "http://a/x"); ok {
		t.Fatal("statement without a header")
	}
	h.Add("Content-Usage", "train-ai=y")
	h.Add("Content-Usage", "search=n, train-ai=n") // one dictionary: the later key wins
	hs, ok := FromHeader(h, "http://a/x")
	if !ok || hs.Prefs.Get("train-ai") != Disallow || hs.Text != "Content-Usage: train-ai=y, search=n, train-ai=n" {
		t.Fatalf("header statement %+v", hs)
	}
	robotsY := Statement{Source: SourceRobots, URL: "http://a/robots.txt", Line: 4, Text: "Content-Usage: train-ai=y", Prefs: Parse("train-ai=y")}
	robotsN := Statement{Source: SourceRobots, URL: "http://a/robots.txt", Line: 5, Text: "Content-Usage: /x train-ai=n", Prefs: Parse("train-ai=n")}
	none := Statement{Source: SourceRobots, Line: 6, Prefs: Parse("foo=n")}
	tests := []struct {
		stmts []Statement
		want  Value
		by    int // line of the deciding statement; -1 for the header
	}{
		{[]Statement{robotsY, robotsN}, Disallow, 5},
		{[]Statement{robotsY, none}, Allow, 4},
		{[]Statement{none}, Unknown, 0},
		{nil, Unknown, 0},
		{[]Statement{robotsY, hs}, Disallow, -1},
	}
	for i, tt := range tests {
		d := Combine("train-ai", tt.stmts...)
		line := 0
		if d.By != nil {
			line = d.By.Line
			if d.By.Source == SourceHeader {
				line = -1
			}
		}
		if d.Value != tt.want || line != tt.by {
			t.Errorf("%d: %v (by line %d), want %v by %d", i, d, line, tt.want, tt.by)
		}
	}
	if s := Combine("train-ai", robotsN).String(); s != `train-ai=n by http://a/robots.txt line 5 "Content-Usage: /x train-ai=n"` {
		t.Errorf("String %q", s)
	}
}

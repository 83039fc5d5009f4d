package robots

import (
	"reflect"
	"testing"
)

func TestUsageRules(t *testing.T) {
	// The example of draft-ietf-aipref-attach-05 §4.4, plus the cases
	// around it.
	const example = "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n"
	type uc struct {
		agent, path string
		crawlable   bool
		lines       []int // deciding rules
	}
	tests := []struct {
		name  string
		body  string
		cases []uc
	}{
		{"draft example", example, []uc{
			{"OtherBot", "/test", true, []int{4}},
			{"OtherBot", "/never/test", false, nil},
			{"OtherBot", "/ai-ok/test", true, []int{5}},
			{"OtherBot", "/ai-ok", true, []int{4}},
			{"ExampleBot", "/ai-ok/test", true, []int{9}},
			{"ExampleBot", "/never/test", true, []int{9}},
		}},
		{"identical paths are all returned", "User-agent: *\nContent-Usage: /a/ train-ai=y\nContent-Usage: /a/ train-ai=n\nContent-Usage: /a/b search=n\nContent-Usage: /%61/ search=y\n", []uc{
			{"x", "/a/1", true, []int{2, 3, 5}},
			{"x", "/a/b", true, []int{4}},
			{"x", "/b", true, nil},
		}},
		{"paths matched as Allow/Disallow are", "User-agent: *\nContent-Usage: /caf%C3%A9/ train-ai=n\nContent-Usage: /*.pdf$ train-ai=n\nContent-Usage: /q?x=1 search=n\nContent-Usage: /p%24 train-ai=y\n", []uc{
			{"x", "/café/menu", true, []int{2}},
			{"x", "/caf%c3%a9/menu", true, []int{2}},
			{"x", "/doc/a.pdf", true, []int{3}},
			{"x", "/doc/a.pdf?v=2", true, nil},
			{"x", "/q?x=1&y=2", true, []int{4}},
			{"x", "/p$", true, []int{5}},
		}},
		{"a rule without a path loses to any path", "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: / train-ai=y\n", []uc{
			{"x", "/any", true, []int{3}},
		}},
		{"a Content-Usage line ends the run of user-agent lines", "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n", []uc{
			{"a", "/x", true, []int{2}},
			{"b", "/y", true, nil},
			{"b", "/x", false, nil},
		}},
		{"rules before any group are ignored", "Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\n", []uc{
			{"x", "/", true, nil},
		}},
		{"no group", "User-agent: other\nContent-Usage: train-ai=n\n", []uc{
			{"x", "/", true, nil},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.body))
			for _, c := range tt.cases {
				v := f.Group(c.agent).Usage(c.path)
				var lines []int
				for _, r := range v.Rules {
					lines = append(lines, r.Line)
				}
				if v.Crawlable != c.crawlable || !reflect.DeepEqual(lines, c.lines) {
					t.Errorf("%s %s: crawlable %v rules %v, want %v %v", c.agent, c.path, v.Crawlable, lines, c.crawlable, c.lines)
				}
			}
		})
	}
}

func TestUsageRuleFields(t *testing.T) {
	f := Parse([]byte("User-agent: *\ncontent-usage :  /ai/\ttrain-ai=n, search=y  # why\nContent-Usage: train-ai=y\n"))
	got := f.Group("x").UsageRules()
	want := []UsageRule{
		{Line: 2, Text: "content-usage :  /ai/\ttrain-ai=n, search=y", Path: "/ai/", Pattern: "/ai/", Preference: "train-ai=n, search=y"},
		{Line: 3, Text: "Content-Usage: train-ai=y", Preference: "train-ai=y"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if r := f.Report(); len(r.Skipped) != 0 {
		t.Errorf("skipped %+v", r.Skipped)
	}
}

func TestLintContentUsage(t *testing.T) {
	body := "Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: train-ai=n, search=y\nContent-Usage: train-ai=maybe\nContent-Usage: Train-AI=n\nContent-Usage: /x/\nContent-Usage: foo=n\nContent-Usage: *.pdf train-ai=n\nContent-Usage:\nContent-Usage: /y/ train-ai\n"
	fs := Lint([]byte(body), WithUsageLabels("train-ai", "search"))
	want := []lintHit{{1, CodeRuleOutsideGroup}, {4, CodeInvalidContentUsage}, {5, CodeInvalidContentUsage}, {6, CodeInvalidContentUsage}, {7, CodeInvalidContentUsage}, {8, CodeInvalidContentUsage}, {9, CodeInvalidContentUsage}, {10, CodeInvalidContentUsage}}
	if got := hits(fs, ""); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings %v, want %v\nall: %v", got, want, fs)
	}
	for _, f := range fs {
		t.Log(f)
	}
	// Without the vocabulary, an unknown key is not reported.
	if got := hits(Lint([]byte("User-agent: *\nContent-Usage: foo=n\n")), ""); len(got) != 0 {
		t.Errorf("findings %v", got)
	}
}

package robots

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\nb\r\nc\rd\n", []string{"a", "b", "c", "d"}},
		{"\xEF\xBB\xBFUser-agent: *\n\nDisallow: /\n", []string{"User-agent: *", "", "Disallow: /"}},
	} {
		got := Lines([]byte(tc.body))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	// A line cut by the limit is left out, as Parse leaves it out.
	big := strings.Repeat("Disallow: /x\n", DefaultMaxBytes/13) + "User-agent: *\nDisallow: /cut-here\n"
	lines := Lines([]byte(big))
	if n := Parse([]byte(big)).Report().Lines; len(lines) != n {
		t.Fatalf("%d lines, Parse read %d", len(lines), n)
	}
	if last := lines[len(lines)-1]; strings.Contains(last, "cut-here") {
		t.Fatalf("last line %q is past the limit", last)
	}
}

// FuzzLines checks that Lines numbers lines as Parse does: the same count,
// and every rule's text is on its line.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"User-agent: *\nDisallow: /a # c\r\nAllow: /b\r", "\xEF\xBBuser-agent x\n\n\ndisallow /", "a\r\r\n\nb"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		lines := Lines(body)
		file := Parse(body)
		if len(lines) != file.Report().Lines {
			t.Fatalf("%d lines, Parse read %d", len(lines), file.Report().Lines)
		}
		for _, r := range file.rules {
			if r.Line < 1 || r.Line > len(lines) {
				t.Fatalf("rule on line %d of %d", r.Line, len(lines))
			}
			if !strings.Contains(lines[r.Line-1], r.Text) {
				t.Fatalf("rule %q not on line %d %q", r.Text, r.Line, lines[r.Line-1])
			}
		}
	})
}

package aipref

import (
	"net/http"
	"testing"
)

// FuzzParse checks that any statement (a robots.txt rule's preference or
// a header) is processed without panic, that Parse and Check agree on
// whether it was readable, and that every category gets one of the three
// values.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"train-ai=n", "train-ai=y, search=n", "train-ai;a=1, train-ai=y", "Train-AI=n", `a="\"", b=:AQ==:, c=@1, d=%"x"`, "train-ai=(y n);p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Parse(s)
		for label, v := range p {
			if _, ok := Lookup(label); !ok || v != Allow && v != Disallow {
				t.Fatalf("Parse(%q): %q=%v", s, label, v)
			}
		}
		_ = Check(s)
		h := http.Header{"Content-Usage": {s, s}}
		if st, ok := FromHeader(h, "u"); !ok || st.Source != SourceHeader {
			t.Fatalf("FromHeader: %+v %v", st, ok)
		}
		for _, c := range Categories {
			_ = Combine(c.Label, Statement{Prefs: p})
		}
	})
}

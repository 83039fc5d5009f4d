package redisfrontier

import (
	"testing"

	"github.com/heedcrawl/heed/frontier"
)

// FuzzDecodeMember feeds stored queue entries, as Redis could hold them
// after corruption or a foreign writer, to the decoder: an error or a
// request with a URL and a Seq, never a panic; and an entry the frontier
// writes reads back as written.
func FuzzDecodeMember(f *testing.F) {
	good := func(r *frontier.Request) string {
		b, _ := requestJSON(r)
		return string(sortKey(r, frontier.BreadthFirst)) + seqID(r.Seq) + seqID(r.Seq) + string(b)
	}
	f.Add(good(&frontier.Request{URL: "http://a.example/", Seq: 1}))
	f.Add(good(&frontier.Request{URL: "https://b.example:8443/x?y", Seq: 1 << 40, Depth: 3, Priority: -2,
		Meta: map[string]string{"k": "v"}, Redirects: []string{"http://c.example/"}}))
	f.Add("")
	f.Add("0123456789abcdef0000000000000001000000000000000{")
	f.Add("0123456789abcdef00000000000000010000000000000000null")
	f.Add("0123456789abcdef000000000000000100000000000000zz{\"url\":\"x\"}")
	f.Fuzz(func(t *testing.T, m string) {
		r, err := decodeMember(m)
		if err != nil {
			return
		}
		if r.URL == "" || r.Seq == 0 {
			t.Fatalf("decoded %+v without URL or Seq", r)
		}
		again, err := decodeMember(good(r))
		if err != nil || again.URL != r.URL || again.Seq != r.Seq || again.Depth != r.Depth || again.Priority != r.Priority {
			t.Fatalf("re-encoded %+v reads back as %+v, %v", r, again, err)
		}
	})
}

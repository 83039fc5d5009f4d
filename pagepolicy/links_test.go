package pagepolicy

import (
	"errors"
	"slices"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

// TestLinks follows held links to their end: a link of a nofollow page
// is held, not recorded; at the end, a held link reached another way is
// a duplicate without a record, one the admission passes is refused with
// its one record, one the admission's base refuses keeps the base's
// refusal only, and one no push settles gets its record from Flush.
func TestLinks(t *testing.T) {
	var written []string
	l := &Links{Write: func(rec *skiplog.Record) { written = append(written, string(rec.Reason)+" "+rec.URL) }}
	nofollow := pagerobots.ParseMeta("HeedBot", "robots", "nofollow", 1)
	page := "http://a.test/"
	reqs := map[string]*frontier.Request{}
	for _, u := range []string{"dup", "admitted", "scoped", "unpushed"} {
		reqs[u] = &frontier.Request{URL: page + u, Depth: 1, Referrer: page}
		if !l.Unfollow(page, nofollow, reqs[u], "") {
			t.Fatalf("%s: the link of a nofollow page is followed", u)
		}
	}
	if l.Unfollow(page, pagerobots.Directives{}, &frontier.Request{URL: page + "free"}, "") {
		t.Error("a link of a page without nofollow is held")
	}
	if len(written) != 0 || !l.Held.Holds(reqs["dup"]) {
		t.Fatalf("records %q before the end, want the links held", written)
	}

	errScope := errors.New("out of scope")
	errRefused := errors.New("refused, recorded")
	var baseSaw []string
	admit := l.Admission(func(req *frontier.Request) error {
		baseSaw = append(baseSaw, req.URL)
		if req == reqs["scoped"] {
			return errScope
		}
		return nil
	}, errRefused)
	if err := admit(&frontier.Request{URL: page + "other"}); err != nil {
		t.Errorf("a link never held: %v", err)
	}
	l.Flush(func(req *frontier.Request) bool {
		switch req {
		case reqs["dup"]:
			return true // reached another way: the frontier knew it
		case reqs["unpushed"]:
			return false // a frontier that does not ask the admission
		}
		err := admit(req)
		if req == reqs["scoped"] && err != errScope || req == reqs["admitted"] && err != errRefused {
			t.Errorf("%s: admission %v", req.URL, err)
		}
		return false
	})
	want := []string{"nofollow " + page + "admitted", "nofollow " + page + "unpushed"}
	if !slices.Equal(written, want) {
		t.Errorf("records %q, want %q", written, want)
	}
	if !slices.Equal(baseSaw, []string{page + "other", page + "admitted", page + "scoped"}) {
		t.Errorf("the base admission saw %q", baseSaw)
	}
	if l.Held.Holds(reqs["dup"]) || l.Held.Holds(reqs["admitted"]) {
		t.Error("links held after Flush")
	}

	// Without a frontier to push to, every held link gets its record.
	written = nil
	l.Unfollow(page, nofollow, reqs["dup"], "")
	l.Flush(nil)
	if !slices.Equal(written, []string{"nofollow " + page + "dup"}) {
		t.Errorf("records %q without a push", written)
	}
}

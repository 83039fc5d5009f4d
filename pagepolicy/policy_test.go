package pagepolicy

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/pagerobots"
	"github.com/heedcrawl/heed/skiplog"
)

func TestCheck(t *testing.T) {
	if err := (&Policy{Respect: []string{"noindex"}, Purposes: []string{"train-ai"}}).Check(); err != nil {
		t.Errorf("known directive and purpose refused: %v", err)
	}
	if (&Policy{Respect: []string{"nosuch"}}).Check() == nil {
		t.Error("unknown directive accepted")
	}
	if (&Policy{Purposes: []string{"nosuch"}}).Check() == nil {
		t.Error("unknown purpose accepted")
	}
}

// TestDecisions checks which records the policy makes of what a page
// said: withheld items for a purpose said n and for a respected
// directive (the purpose first), unfollowed links for nofollow unless
// ignored, and for rel="nofollow" only when declared.
func TestDecisions(t *testing.T) {
	page := &frontier.Request{URL: "http://a.test/p", Depth: 1}
	d := pagerobots.ParseMeta("HeedBot", "robots", "noindex, nofollow", 3)
	usage := []aipref.Decision{{Label: "train-ai", Value: aipref.Disallow}}
	link := &frontier.Request{URL: "http://a.test/next", Depth: 2, Referrer: page.URL}

	p := Policy{Respect: []string{"noindex"}, Purposes: []string{"train-ai"}}
	if rec := p.Withheld(page, d, usage); rec == nil || rec.Reason != skiplog.UsagePreference {
		t.Errorf("withheld %+v, want the usage preference first", rec)
	}
	if rec := p.Withheld(page, d, nil); rec == nil || rec.Reason != skiplog.PageDirective || rec.Directive.Line != 3 {
		t.Errorf("withheld %+v, want the noindex directive of line 3", rec)
	}
	if rec := (&Policy{}).Withheld(page, d, usage); rec != nil {
		t.Errorf("nothing declared, withheld %+v", rec)
	}
	if rec := p.Unfollowed(page.URL, d, link, ""); rec == nil || rec.Reason != skiplog.Nofollow || rec.URL != link.URL || rec.Depth != 2 {
		t.Errorf("unfollowed %+v, want the link's nofollow record", rec)
	}
	if rec := (&Policy{IgnoreNofollow: true}).Unfollowed(page.URL, d, link, "nofollow"); rec != nil {
		t.Errorf("nofollow ignored, rel not declared: %+v", rec)
	}
	if rec := (&Policy{IgnoreNofollow: true, RelNofollow: true}).Unfollowed(page.URL, pagerobots.Directives{}, link, "external NoFollow"); rec == nil || rec.Reason != skiplog.RelNofollow {
		t.Errorf("rel=nofollow declared: %+v", rec)
	}
	if s := SignalsOf(d, usage); len(s.Robots) != 2 || s.Usage["train-ai"] != "n" {
		t.Errorf("signals %+v", s)
	}
}

// TestHeld checks a held link: one record per canonical URL (the first
// evidence kept), taken once, released in URL order.
func TestHeld(t *testing.T) {
	var h Held
	b := &frontier.Request{URL: "http://a.test/b"}
	a := &frontier.Request{URL: "http://A.test/a"}
	again := &frontier.Request{URL: "http://a.test/a"}
	first := &skiplog.Record{URL: a.URL, Reason: skiplog.Nofollow}
	if !h.Hold(b, &skiplog.Record{URL: b.URL}) || !h.Hold(a, first) || !h.Hold(again, &skiplog.Record{URL: again.URL}) {
		t.Fatal("Hold refused under the limit")
	}
	if h.Holds(again) {
		t.Error("a URL held already got a second record")
	}
	reqs := h.Release()
	if len(reqs) != 2 || reqs[0] != a || reqs[1] != b {
		t.Fatalf("released %v", reqs)
	}
	if rec := h.Take(a); rec != first {
		t.Errorf("took %+v, want the first evidence", rec)
	}
	if h.Take(a) != nil || h.Holds(a) {
		t.Error("a record taken twice")
	}
	h.Forget()
	if h.Holds(b) {
		t.Error("a record kept after Forget")
	}
}

// TestUsage: one decision per category of the vocabulary, in its order,
// the header's statement deciding where robots.txt says nothing.
func TestUsage(t *testing.T) {
	u, _ := url.Parse("http://a.test/p")
	got := Usage(nil, u, http.Header{"Content-Usage": {"train-ai=n"}})
	if len(got) != len(aipref.Categories) {
		t.Fatalf("%d decisions for %d categories", len(got), len(aipref.Categories))
	}
	for i, d := range got {
		want := aipref.Unknown
		if d.Label == "train-ai" {
			want = aipref.Disallow
		}
		if d.Label != aipref.Categories[i].Label || d.Value != want {
			t.Errorf("decision %d: %+v, want %s=%v", i, d, aipref.Categories[i].Label, want)
		}
	}
}

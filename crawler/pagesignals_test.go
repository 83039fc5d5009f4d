package crawler_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/pages"
	"github.com/heedcrawl/heed/skiplog"
)

// signalsCrawl crawls the testweb signals site as heedbot with the
// default link following and a Page item per page, under policy p.
func signalsCrawl(t *testing.T, p testweb.SignalPolicy, extra ...crawler.Option) ([]*skiplog.Record, []pages.Page, *testweb.Site, crawler.Summary) {
	t.Helper()
	site, err := testweb.StartSignals(testweb.WithTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	var skips bytes.Buffer
	items := &pageCollector{}
	opts := append(siteOptions(site), crawler.WithSkipLog(&skips),
		crawler.WithNofollow(!p.IgnoreNofollow), crawler.WithRelNofollow(p.RelNofollow),
		crawler.WithRespect(p.Respect...), crawler.WithPurposes(p.Purposes...))
	c, err := crawler.New(testweb.SignalsAgent, append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	pages.Emit(c)
	c.Export(items)
	// Non-HTML pages emit an item too, so that withheld items show there.
	c.OnResponse(func(r *crawler.Response) {
		if !strings.Contains(r.Header.Get("Content-Type"), "html") {
			r.Emit(pages.Page{URL: r.Request.URL, Status: r.StatusCode})
		}
	})
	sum := run(t, c, site.Seeds()...)
	items.mu.Lock()
	got := append([]pages.Page(nil), items.pages...)
	items.mu.Unlock()
	return readSkips(t, &skips), got, site, sum
}

// pageCollector is an Exporter that keeps the Page items.
type pageCollector struct {
	mu    sync.Mutex
	pages []pages.Page
}

func (p *pageCollector) Export(item any) error {
	if pg, ok := item.(pages.Page); ok {
		p.mu.Lock()
		p.pages = append(p.pages, pg)
		p.mu.Unlock()
	}
	return nil
}

func (p *pageCollector) Close() error { return nil }

func TestSignalsFollowTheOracle(t *testing.T) {
	policies := []testweb.SignalPolicy{
		{},
		{IgnoreNofollow: true},
		{RelNofollow: true, Respect: []string{"noindex", "noarchive"}, Purposes: []string{"train-ai"}},
		{Purposes: []string{"search"}},
	}
	for _, p := range policies {
		name, _ := json.Marshal(p)
		t.Run(string(name), func(t *testing.T) {
			recs, exported, site, sum := signalsCrawl(t, p)
			want := testweb.SignalsOracle(p)
			t.Logf("%d records, %d pages exported, oracle %d", len(recs), len(exported), len(want))
			got := map[string]*skiplog.Record{}
			for _, r := range recs {
				u, _ := url.Parse(r.URL)
				if got[r.URL] != nil {
					t.Errorf("two records for %s: %s and %s", r.URL, got[r.URL].Reason, r.Reason)
				}
				got[r.URL] = r
				_ = u
			}
			if len(recs) != len(want) {
				var have []string
				for _, r := range recs {
					have = append(have, string(r.Reason)+" "+r.URL)
				}
				t.Errorf("%d records, want %d:\n%s", len(recs), len(want), strings.Join(have, "\n"))
			}
			for _, w := range want {
				u := site.Host(w.Host).Authority + w.Path
				r := got[u]
				if r == nil {
					t.Errorf("no record for %s (want %s)", u, w.Reason)
					continue
				}
				if string(r.Reason) != w.Reason {
					t.Errorf("%s: reason %s, want %s", u, r.Reason, w.Reason)
					continue
				}
				checkSignalEvidence(t, site, u, r, w)
			}
			// Withheld pages export no item; every other page fetched does.
			withheld := map[string]bool{}
			for _, w := range want {
				if w.Reason == "usage-preference" || w.Reason == "page-directive" {
					withheld[site.Host(w.Host).Authority+w.Path] = true
				}
			}
			for _, pg := range exported {
				if withheld[pg.URL] {
					t.Errorf("item of withheld page %s exported", pg.URL)
				}
			}
			if n := sum.Stats.ItemsDropped; n != int64(len(withheld)) {
				t.Errorf("%d items dropped, want %d", n, len(withheld))
			}
		})
	}
}

// TestHeldLinksWithACallersFrontier: a frontier of the caller's asks no
// admission (the session says so, backend.Admitter), so the links a
// nofollow page held back are recorded when the crawl ends, not also
// pushed into a frontier no worker reads any more.
func TestHeldLinksWithACallersFrontier(t *testing.T) {
	front := frontier.NewMemory()
	recs, _, site, _ := signalsCrawl(t, testweb.SignalPolicy{}, crawler.WithFrontier(front))
	if st := front.Stats(); st.Queued != 0 || st.Leased != 0 {
		t.Errorf("the caller's frontier holds %d queued, %d leased after the crawl: held links were pushed into it", st.Queued, st.Leased)
	}
	got := map[string]skiplog.Reason{}
	for _, r := range recs {
		got[r.URL] = r.Reason
	}
	n := 0
	for _, w := range testweb.SignalsOracle(testweb.SignalPolicy{}) {
		if w.Reason != "nofollow" {
			continue
		}
		n++
		if u := site.Host(w.Host).Authority + w.Path; got[u] != skiplog.Nofollow {
			t.Errorf("%s: reason %q, want nofollow", u, got[u])
		}
	}
	if n == 0 {
		t.Fatal("the oracle holds no nofollow link")
	}
}

func checkSignalEvidence(t *testing.T, site *testweb.Site, u string, r *skiplog.Record, w testweb.SignalSkip) {
	t.Helper()
	switch w.Reason {
	case "nofollow", "rel-nofollow", "page-directive":
		d := r.Directive
		if d == nil {
			t.Errorf("%s: no directive evidence", u)
			return
		}
		page := site.Host(w.Host).Authority + w.Page
		if d.Page != page || d.Source != w.Source || d.Directive != w.Directive || d.Line != w.Line {
			t.Errorf("%s: evidence %+v, want page %s source %s directive %s line %d", u, d, page, w.Source, w.Directive, w.Line)
		}
		if w.Statement != "" && d.Statement != w.Statement {
			t.Errorf("%s: statement %q, want %q", u, d.Statement, w.Statement)
		}
	case "usage-preference":
		e := r.Usage
		if e == nil {
			t.Errorf("%s: no usage evidence", u)
			return
		}
		if e.Source != w.Source || e.Line != w.Line || e.Rule != w.Statement {
			t.Errorf("%s: evidence %+v, want %s line %d %q", u, e, w.Source, w.Line, w.Statement)
		}
		if w.Source == "robots.txt" && e.URL != site.Host(w.Host).RobotsURL {
			t.Errorf("%s: robots.txt %q", u, e.URL)
		}
	case "robots-disallow":
		if r.Robots == nil || r.Robots.Line != w.Line || r.Robots.Rule != w.Statement {
			t.Errorf("%s: robots evidence %+v, want line %d %q", u, r.Robots, w.Line, w.Statement)
		}
	}
}

func TestSignalsOnItems(t *testing.T) {
	_, exported, site, _ := signalsCrawl(t, testweb.SignalPolicy{})
	byURL := map[string]pages.Page{}
	for _, p := range exported {
		byURL[p.URL] = p
	}
	meta := site.Host(testweb.HostMeta).Authority
	usage := site.Host(testweb.HostUsage).Authority
	hdr := site.Host(testweb.HostUsageHeader).Authority
	tests := []struct {
		url    string
		robots []string
		usage  map[string]string
	}{
		{meta + "/agent", []string{"nofollow", "noarchive"}, nil},
		{meta + "/other-agent", nil, nil}, // another crawler's meta
		{meta + "/nf/late", nil, nil},     // held on /nofollow, reached from /deeper
		{usage + "/", nil, map[string]string{"train-ai": "n"}},
		{usage + "/open/a", nil, map[string]string{"train-ai": "y"}},
		{usage + "/conflict/a", nil, map[string]string{"train-ai": "n"}},
		{hdr + "/y", nil, map[string]string{"train-ai": "y", "search": "n"}},
		{hdr + "/malformed", nil, nil},
	}
	for _, tt := range tests {
		p, ok := byURL[tt.url]
		if !ok {
			t.Errorf("no item for %s", tt.url)
			continue
		}
		if !slices.Equal(p.Robots, tt.robots) || !mapsEqual(p.Usage, tt.usage) {
			t.Errorf("%s: robots %v usage %v, want %v %v", tt.url, p.Robots, p.Usage, tt.robots, tt.usage)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSignalOptionsAreChecked(t *testing.T) {
	if _, err := crawler.New("HeedBot", crawler.WithPurposes("train-everything")); err == nil {
		t.Error("unknown purpose accepted")
	}
	if _, err := crawler.New("HeedBot", crawler.WithRespect("noindexx")); err == nil {
		t.Error("unknown directive accepted")
	}
}

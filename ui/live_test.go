package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// watchedCrawl runs a crawl of a small generated site (two hosts, one
// with a Crawl-delay, disallowed links) watched by a Monitor, and returns
// the pages' server once the crawl has finished.
func watchedCrawl(t *testing.T) (*Monitor, *testweb.Site) {
	t.Helper()
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 2, PagesPerHost: 8, PageBytes: 512, LinksPerPage: 3, CrawlDelay: 0.05, DisallowFraction: 0.2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	c, err := crawler.New("HeedBot",
		crawler.WithDelay(10*time.Millisecond),
		crawler.WithAllowedDomains(site.Domains()...),
		crawler.WithSkipLog(&bytes.Buffer{}),
		crawler.WithStartLog(StartLogSize),
	)
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	m := NewMonitor(c, WithSampleInterval(20*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Run(ctx, site.Seeds()...); err != nil {
		t.Fatal(err)
	}
	return m, site
}

func TestLiveAPIAndPage(t *testing.T) {
	m, site := watchedCrawl(t)
	ts := newServer(t, WithMonitor(m))
	get(t, ts, "/", 302, "text/html")
	var v LiveView
	if err := json.Unmarshal([]byte(get(t, ts, "/api/live", 200, "application/json")), &v); err != nil {
		t.Fatal(err)
	}
	hits := site.PageRequests()
	if v.Pages != int64(len(hits)) || !v.Finished || v.Running || v.Agent != "HeedBot" {
		t.Fatalf("view: pages %d (site served %d), finished %v running %v", v.Pages, len(hits), v.Finished, v.Running)
	}
	if len(v.SkipReasons) != 1 || v.SkipReasons[0].Reason != skiplog.RobotsDisallow || v.SkipReasons[0].Count != v.Skipped || v.Skipped == 0 {
		t.Fatalf("skip reasons %+v, skipped %d", v.SkipReasons, v.Skipped)
	}
	if len(v.Authorities) != 2 || !v.Pacing {
		t.Fatalf("authorities %+v", v.Authorities)
	}
	for _, a := range v.Authorities {
		if a.Robots != "available" || a.RobotsStatus != 200 || a.CrawlDelay != 0.05 || a.Interval != 0.05 || a.Requests == 0 {
			t.Fatalf("authority %+v", a)
		}
		if len(a.Starts) != int(a.Requests)+1 || a.MinGap < a.Interval {
			t.Fatalf("%s: %d starts for %d requests, min gap %v, interval %v", a.Authority, len(a.Starts), a.Requests, a.MinGap, a.Interval)
		}
	}
	if len(v.RateSeries) == 0 {
		t.Fatal("no rate samples")
	}
	for _, chart := range []string{string(v.Charts.Rate), string(v.Charts.Skips), string(v.Charts.Timeline)} {
		if !strings.HasPrefix(chart, "<svg") || !strings.HasSuffix(chart, "</svg>") {
			t.Fatalf("chart %.80s", chart)
		}
	}
	if n := strings.Count(string(v.Charts.Timeline), `class="tick"`); n != len(v.Authorities[0].Starts)+len(v.Authorities[1].Starts) {
		t.Fatalf("timeline has %d ticks", n)
	}
	page := get(t, ts, "/live", 200, "text/html; charset=utf-8")
	for _, want := range []string{`data-k="pages">` + itoa(v.Pages) + "<", `id="chart-timeline"><svg`, "robots-disallow", "/static/live.js", "finished"} {
		if !strings.Contains(page, want) {
			t.Errorf("live page lacks %s", want)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestLiveEvents(t *testing.T) {
	m, _ := watchedCrawl(t)
	ts := newServer(t, WithMonitor(m))
	resp, err := ts.Client().Get(ts.URL + "/api/live/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	// A finished crawl: one view, then the end.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var events []string
	var view LiveView
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, ev)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && len(events) == 1 {
			if err := json.Unmarshal([]byte(data), &view); err != nil {
				t.Fatal(err)
			}
		}
	}
	if strings.Join(events, ",") != "view,end" || view.Pages == 0 || !view.Finished {
		t.Fatalf("events %v, view pages %d finished %v", events, view.Pages, view.Finished)
	}
}

func TestSkipBrowser(t *testing.T) {
	m, _ := watchedCrawl(t)
	ts := newServer(t, WithMonitor(m))
	var all struct {
		Matched int               `json:"matched"`
		Records []*skiplog.Record `json:"records"`
	}
	json.Unmarshal([]byte(get(t, ts, "/api/skips", 200, "application/json")), &all)
	if all.Matched == 0 || all.Records[0].Robots == nil || all.Records[0].Robots.Line != 3 {
		t.Fatalf("skips: %d, first %+v", all.Matched, all.Records)
	}
	auth := all.Records[0].Authority
	var one struct {
		Matched int               `json:"matched"`
		Records []*skiplog.Record `json:"records"`
	}
	json.Unmarshal([]byte(get(t, ts, "/api/skips?reason=robots-disallow&authority="+auth, 200, "application/json")), &one)
	if one.Matched == 0 || one.Matched >= all.Matched {
		t.Fatalf("filtered %d of %d", one.Matched, all.Matched)
	}
	for _, r := range one.Records {
		if r.Authority != auth {
			t.Fatalf("filter let %s through", r.Authority)
		}
	}
	json.Unmarshal([]byte(get(t, ts, "/api/skips?reason=offsite", 200, "application/json")), &one)
	if one.Matched != 0 || len(one.Records) != 0 {
		t.Fatalf("offsite: %d", one.Matched)
	}
	page := get(t, ts, "/skips?reason=robots-disallow", 200, "text/html; charset=utf-8")
	for _, want := range []string{`<label for="reason">`, `<label for="authority">`, "Disallow: /d/", "line 3:", "user-agent *"} {
		if !strings.Contains(page, want) {
			t.Errorf("skip page lacks %q", want)
		}
	}
}

func TestPagesNotServed(t *testing.T) {
	ts := newServer(t)
	for _, p := range []string{"/live", "/skips", "/job", "/fleet"} {
		get(t, ts, p, http.StatusNotFound, "text/html; charset=utf-8")
	}
	for _, p := range []string{"/api/live", "/api/live/events", "/api/skips", "/api/job", "/api/fleet"} {
		get(t, ts, p, http.StatusNotFound, "application/json")
	}
}

package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
)

// pausedJob crawls one host of a generated site with a state for ten
// pages, then stops: the state holds a paused job with URLs queued and
// the other host's links skip-logged as offsite.
func pausedJob(t *testing.T) string {
	t.Helper()
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 2, PagesPerHost: 30, PageBytes: 512, LinksPerPage: 3, CrossHostFraction: 0.5, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	dir := t.TempDir()
	c, err := crawler.New("HeedBot", crawler.WithDelay(5*time.Millisecond), crawler.WithAllowedDomains(site.Domains()[0]), crawler.WithBackend(jobstate.Dir(dir)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pages := 0
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnResponse(func(*crawler.Response) {
		if pages++; pages == 10 {
			cancel()
		}
	})
	if _, err := c.Run(ctx, site.Hosts()[0].BaseURL); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestJobAtRest(t *testing.T) {
	dir := pausedJob(t)
	ts := newServer(t, WithStateDir(dir))
	get(t, ts, "/", 302, "text/html")
	var v JobView
	if err := json.Unmarshal([]byte(get(t, ts, "/api/job", 200, "application/json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Report == nil || v.Report.Job.Runs != 1 || v.Report.Job.Complete || v.Report.Frontier.Queued == 0 || len(v.Queue) == 0 || !strings.HasPrefix(v.Status, "paused") {
		t.Fatalf("job view %+v", v)
	}
	page := get(t, ts, "/job", 200, "text/html; charset=utf-8")
	for _, want := range []string{"paused", "Queue by authority", "robots.txt by authority", "available", v.Queue[0].Authority} {
		if !strings.Contains(page, want) {
			t.Errorf("job page lacks %q", want)
		}
	}
	skips := get(t, ts, "/skips?reason=offsite", 200, "text/html; charset=utf-8")
	if !strings.Contains(skips, "the skip log of the state") || !strings.Contains(skips, `<span class="badge disallow">offsite</span>`) {
		t.Error("the skip browser does not show the state's skip log")
	}
	// A crawl holding the state: the page says so and reads nothing.
	st, err := jobstate.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	get(t, ts, "/job", http.StatusConflict, "text/html; charset=utf-8")
	get(t, ts, "/api/job", http.StatusConflict, "application/json")
}

func TestJobNotAState(t *testing.T) {
	ts := newServer(t, WithStateDir(t.TempDir()))
	get(t, ts, "/job", http.StatusInternalServerError, "text/html; charset=utf-8")
}

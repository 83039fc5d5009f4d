package redisfleet_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/heedcrawl/heed/ui"
	"github.com/heedcrawl/heed/ui/redisfleet"
)

// TestFleetPage runs a crawl shared through Redis to its end, then reads
// it back without joining it, and serves it on the fleet page.
func TestFleetPage(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 2, PagesPerHost: 6, PageBytes: 512, LinksPerPage: 2, DisallowFraction: 0.2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithAllowedDomains(site.Domains()...), crawler.WithSkipLog(io.Discard), crawler.WithBackend(mustFleet(t, rdb, "uitest")))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := c.Run(ctx, site.Seeds()...)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := rdb.DBSize(ctx).Result()

	src, err := redisfleet.New(rdb, "uitest", fleet.Prefix("uitest"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Fleet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pages != fleet.SummaryOf(sum.Backend).Pages || v.Queued != 0 || v.Leased != 0 || !v.Complete() || len(v.Authorities) != 2 || v.Robots["available"] != 2 {
		t.Fatalf("fleet view %+v, crawl's summary %+v", v, fleet.SummaryOf(sum.Backend))
	}
	// The page reads the crawl-wide counts as the crawl's own summary
	// does (fleet.Summarize): the same fields, the same values.
	if want := fleet.SummaryOf(sum.Backend); !reflect.DeepEqual(v.Shared, *want) {
		t.Fatalf("fleet view's counts %+v, crawl's summary %+v", v.Shared, *want)
	}
	if after, _ := rdb.DBSize(ctx).Result(); after != keys {
		t.Fatalf("reading the fleet changed the keys: %d, then %d", keys, after)
	}

	s, err := ui.New(ui.WithFleet(src))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/api/fleet")
	if err != nil {
		t.Fatal(err)
	}
	var got ui.FleetView
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || got.Pages != v.Pages {
		t.Fatalf("/api/fleet: %d %s, pages %d", resp.StatusCode, resp.Header.Get("Content-Type"), got.Pages)
	}
	resp, err = http.Get(ts.URL + "/fleet")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "uitest") || !strings.Contains(string(b), "Complete") {
		t.Fatalf("/fleet: %d\n%s", resp.StatusCode, b)
	}
}

// A crawl ID nobody used reads as an empty fleet, and a Redis that is
// gone as an error page.
func TestFleetEmptyAndGone(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	src, err := redisfleet.New(rdb, "none", fleet.Prefix("none"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Fleet(context.Background())
	if err != nil || v.Pages != 0 || v.Queued != 0 || v.Complete() {
		t.Fatalf("empty fleet: %+v, %v", v, err)
	}
	srv.Stop()
	s, _ := ui.New(ui.WithFleet(src))
	ts := httptest.NewServer(s)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/fleet", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("Redis gone: status %d", resp.StatusCode)
	}
}

func mustFleet(t *testing.T, rdb redis.UniversalClient, id string) *fleet.Fleet {
	t.Helper()
	b, err := fleet.New(rdb, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

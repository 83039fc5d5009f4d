package inventory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/inventory"
	"github.com/heedcrawl/heed/skiplog"
)

// TestInventoryContactsNoForeignHost: a sitemap listing pages of 32 dead
// authorities and of other ports: the inventory lists them as out of
// scope and sends them nothing, so it neither waits on them nor lets a
// sitemap aim heed at arbitrary hosts and ports.
func TestInventoryContactsNoForeignHost(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{Dead: 32})
	inv, err := inventory.New("HeedBot", crawler.WithDelay(0), crawler.WithTimeout(time.Second),
		crawler.WithRobotsGiveUp(4*time.Second, 200*time.Millisecond), crawler.WithSitemapFallback(false),
		crawler.WithSitemaps(hostile.Sitemaps+"/foreign.xml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rows []inventory.Row
	start := time.Now()
	if _, err := inv.Run(ctx, nil, func(r inventory.Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	for _, d := range hostile.Dead {
		if hits := hostile.HitsOn(d); len(hits) > 0 {
			t.Errorf("the inventory sent %d requests to %s, which only a sitemap named (first %s)", len(hits), d, hits[0].Path)
		}
	}
	foreign := 0
	for _, r := range rows {
		if !strings.HasPrefix(r.URL, hostile.Sitemaps+"/") {
			foreign++
			if r.Reason != skiplog.SitemapScope || r.Allowed || r.RobotsURL != "" {
				t.Errorf("foreign row %+v, want sitemap-scope with no robots.txt", r)
			}
		}
	}
	if want := len(hostile.Dead) + 1; foreign != want || len(rows) != want+2 {
		t.Errorf("%d rows, %d foreign; want %d foreign of %d", len(rows), foreign, want, want+2)
	}
	t.Logf("%d rows in %v", len(rows), took.Round(time.Millisecond))
	if took > 4*time.Second {
		t.Errorf("the inventory took %v: it waited on foreign hosts", took)
	}
}

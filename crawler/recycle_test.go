package crawler_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// TestKeptBodiesStayIntact: a spider that keeps every response body
// (an OnResponse callback) finds each one intact after the crawl, while a
// second crawl in the same process, whose pages no callback sees, reads
// its bodies into memory recycled from page to page.
func TestKeptBodiesStayIntact(t *testing.T) {
	keptSite := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 60, PageBytes: 4 << 10, LinksPerPage: 4, Seed: 3})
	busySite := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 150, PageBytes: 4 << 10, LinksPerPage: 4, Seed: 4})

	keeper, err := crawler.New("HeedBot", siteOptions(keptSite)...)
	if err != nil {
		t.Fatal(err)
	}
	keeper.FollowLinks()
	var mu sync.Mutex
	kept := map[string][]byte{}
	keeper.OnResponse(func(r *crawler.Response) {
		mu.Lock()
		kept[r.Request.URL] = r.Body
		mu.Unlock()
	})
	busy, err := crawler.New("HeedBot", siteOptions(busySite)...)
	if err != nil {
		t.Fatal(err)
	}
	busy.FollowLinks()

	var wg sync.WaitGroup
	var keptSum, busySum crawler.Summary
	var keptErr, busyErr error
	wg.Add(2)
	go func() { defer wg.Done(); keptSum, keptErr = keeper.Run(context.Background(), keptSite.Seeds()...) }()
	go func() { defer wg.Done(); busySum, busyErr = busy.Run(context.Background(), busySite.Seeds()...) }()
	wg.Wait()
	if keptErr != nil || busyErr != nil {
		t.Fatal(keptErr, busyErr)
	}
	if keptSum.Stats.Pages == 0 || busySum.Stats.Pages == 0 || len(kept) != int(keptSum.Stats.Pages) {
		t.Fatalf("kept %d bodies of %d pages; the other crawl fetched %d", len(kept), keptSum.Stats.Pages, busySum.Stats.Pages)
	}
	client := &http.Client{Transport: keptSite.Transport()}
	for u, body := range kept {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, want) {
			t.Errorf("%s: the kept body (%d bytes) is not the page (%d bytes) any more", u, len(body), len(want))
		}
	}
}

package feed_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/pages"
)

// TestInterruptedFeedsAreValid cancels a crawl midway with feeds of every
// format attached, compressed or not, and checks that each is a valid
// document holding exactly the items the crawl counted.
func TestInterruptedFeedsAreValid(t *testing.T) {
	site := crawltest.StartGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 200, PageBytes: 1024, LinksPerPage: 5, Seed: 11})
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithConcurrencyPerHost(2))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	pages.Emit(c)
	dir := t.TempDir()
	names := []string{"p.jsonl", "p.json", "p.csv", "p.jsonl.gz", "p.json.gz", "p.csv.gz"}
	for _, n := range names {
		f, err := feed.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		c.Export(f)
	}
	sum := crawltest.RunUntilItems(t, c, 25, site.Seeds()...)
	n := int(sum.Stats.Items)
	for _, name := range names {
		b := readFeed(t, filepath.Join(dir, name), strings.HasSuffix(name, ".gz"))
		var got []pages.Page
		switch {
		case strings.Contains(name, ".jsonl"):
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				var p pages.Page
				if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
					t.Fatalf("%s: incomplete line %q: %v", name, sc.Text(), err)
				}
				got = append(got, p)
			}
		case strings.Contains(name, ".json"):
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("%s: not a closed JSON array: %v", name, err)
			}
		default:
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if strings.Join(rows[0], ",") != "url,status,title,depth,referrer,bytes,truncated,links,fetched_at,robots,usage" {
				t.Fatalf("%s: header %q", name, rows[0])
			}
			for _, r := range rows[1:] {
				got = append(got, pages.Page{URL: r[0]})
			}
		}
		if len(got) != n {
			t.Errorf("%s holds %d items, the crawl counted %d", name, len(got), n)
		}
		for _, p := range got {
			if !strings.HasPrefix(p.URL, "http://") {
				t.Errorf("%s: item without a URL: %+v", name, p)
				break
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p.csv")); err != nil {
		t.Fatal(err)
	}
}

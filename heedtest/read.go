package heedtest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/heedcrawl/heed/skiplog"
)

// ReadSkipLog reads the skip log at path by URL. Two records for one URL
// fail the test (heed writes exactly one record for every URL it did not
// fetch), as does a line that is not a whole record.
func ReadSkipLog(tb testing.TB, path string) map[string]*skiplog.Record {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	got := map[string]*skiplog.Record{}
	if err := skiplog.Read(f, func(r *skiplog.Record) error {
		if prev, dup := got[r.URL]; dup {
			tb.Errorf("two skip records for %s: %s and %s", r.URL, prev.Reason, r.Reason)
		}
		got[r.URL] = r
		return nil
	}); err != nil {
		tb.Fatalf("skip log %s is not complete: %v", path, err)
	}
	return got
}

// ReadFeed reads the JSON Lines feed at path and counts its items by
// their "url" field (heed's Page items and most spiders' carry one); a
// line that is not a whole JSON object fails the test.
func ReadFeed(tb testing.TB, path string) map[string]int {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	items := map[string]int{}
	dec := json.NewDecoder(f)
	for {
		var item struct {
			URL string `json:"url"`
		}
		if err := dec.Decode(&item); errors.Is(err, io.EOF) {
			return items
		} else if err != nil {
			tb.Fatalf("feed %s is not whole JSON Lines: %v", path, err)
		}
		items[item.URL]++
	}
}

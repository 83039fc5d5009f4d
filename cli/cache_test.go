package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
)

// TestCrawlCacheMaxAgeAndSize: --cache-max-age serves what is younger and
// fetches again what is older (here given by --config); --cache-max-size
// keeps the directory within its bound, and a crawl on a pruned cache
// fetches what was pruned and writes the same items. The summary's
// HTTP cache line counts both.
func TestCrawlCacheMaxAgeAndSize(t *testing.T) {
	site := startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, PageBytes: 2048, LinksPerPage: 3, DisallowFraction: 0.2, Seed: 4})
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	crawl := func(out string, extra ...string) string {
		t.Helper()
		args := append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--cache", cacheDir,
			"--skiplog", filepath.Join(dir, out+".skips"), "--out", filepath.Join(dir, out)}, extra...)
		code, stdout, errs := runApp(t, append(args, siteArgs(site)...))
		if code != 0 {
			t.Fatalf("crawl %v: %d %s", extra, code, errs)
		}
		return stdout + errs
	}
	crawl("first.jsonl")
	live := len(site.Hits())
	first := itemURLs(t, filepath.Join(dir, "first.jsonl"))

	crawl("fresh.jsonl", "--cache-max-age", "1h")
	if n := len(site.Hits()) - live; n != 0 {
		t.Fatalf("with --cache-max-age 1h the crawl right after reached the site %d times", n)
	}

	// Every entry is older than a nanosecond by now.
	config := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(config, []byte("cache-max-age: 1ns\n"), 0o644)
	summary := crawl("expired.jsonl", "--config", config)
	refetched := len(site.Hits()) - live
	if refetched != live {
		t.Fatalf("with every entry expired the crawl reached the site %d times; the first crawl did %d", refetched, live)
	}
	if !strings.Contains(summary, fmt.Sprintf("(%d of them expired)", live)) {
		t.Errorf("the summary does not count %d expired entries:\n%s", live, summary)
	}

	bound := dirBytes(t, cacheDir) / 3
	summary = crawl("bounded.jsonl", "--cache-max-size", strconv.FormatInt(bound, 10))
	if got := dirBytes(t, cacheDir); got > bound {
		t.Errorf("the cache holds %d bytes after a crawl with --cache-max-size %d", got, bound)
	}
	if m := regexp.MustCompile(`(\d+) pruned, 0 damaged`).FindStringSubmatch(summary); m == nil || m[1] == "0" {
		t.Errorf("the summary does not count pruned entries (and no damage):\n%s", summary)
	}
	// Without the bound, what the pruning left is served and the rest
	// fetched. (Under the bound a crawl in the same order would fetch all
	// again: it stores what was pruned before it reaches what was kept.)
	before := len(site.Hits())
	summary = crawl("replayed.jsonl")
	if n := len(site.Hits()) - before; n == 0 || n >= live {
		t.Errorf("on a pruned cache the crawl reached the site %d times; want the pruned entries only (fewer than %d)", n, live)
	}
	if !strings.Contains(summary, " 0 damaged") {
		t.Errorf("a crawl on a pruned cache found damage:\n%s", summary)
	}
	replayed := itemURLs(t, filepath.Join(dir, "replayed.jsonl"))
	if len(replayed) != len(first) {
		t.Fatalf("items: %d, then %d on the pruned cache", len(first), len(replayed))
	}
	for u := range first {
		if replayed[u] != 1 {
			t.Errorf("%s missing from the crawl on the pruned cache", u)
		}
	}
}

// TestCacheFlagsRefused: a negative age and a size that is not one are
// refused before anything is opened, with the flag and the reason.
func TestCacheFlagsRefused(t *testing.T) {
	for _, tt := range []struct{ flag, value, want string }{
		{"--cache-max-age", "-1s", "must not be negative"},
		{"--cache-max-size", "lots", "want a size"},
		{"--cache-max-size", "-1MiB", "cannot be negative"},
	} {
		code, _, errs := runApp(t, []string{"crawl", "--agent", "HeedBot", "--cache", t.TempDir(), tt.flag, tt.value, "http://127.0.0.1:1/"})
		if code != 2 || !strings.Contains(errs, tt.flag) || !strings.Contains(errs, tt.want) {
			t.Errorf("%s %s: exit %d, %s; want 2 naming the flag and %q", tt.flag, tt.value, code, errs, tt.want)
		}
	}
}

// dirBytes is the bytes of every file under root.
func dirBytes(t *testing.T, root string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(root, func(_ string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSummaryJSONCountsTheCache: --summary-json carries the HTTP cache's
// counts of the run, as the printed summary's cache line does: a first
// crawl fetches and stores every page, the second serves them all; a
// crawl without --cache has no cache object.
func TestSummaryJSONCountsTheCache(t *testing.T) {
	site := startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 8, PageBytes: 1024, LinksPerPage: 3, Seed: 9})
	dir := t.TempDir()
	read := func(name string, extra ...string) map[string]any {
		t.Helper()
		path := filepath.Join(dir, name+".json")
		args := append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never",
			"--out", filepath.Join(dir, name+".jsonl"), "--skiplog", filepath.Join(dir, name+".skips"), "--summary-json", path}, extra...)
		if code, _, errs := runApp(t, append(args, siteArgs(site)...)); code != 0 {
			t.Fatalf("crawl %s: %d %s", name, code, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return doc
	}
	cacheDir := filepath.Join(dir, "cache")
	first := read("first", "--cache", cacheDir)
	pages := first["stats"].(map[string]any)["pages"].(float64)
	c1, _ := first["cache"].(map[string]any)
	if c1 == nil || c1["hits"].(float64) != 0 || c1["misses"].(float64) < pages || c1["stored"].(float64) < pages {
		t.Fatalf("first crawl (%v pages): cache %v; want every page fetched and stored", pages, first["cache"])
	}
	second := read("second", "--cache", cacheDir)
	c2, _ := second["cache"].(map[string]any)
	if c2 == nil || c2["hits"].(float64) < pages || c2["misses"].(float64) != 0 {
		t.Fatalf("second crawl: cache %v; want every page served (%v) and none fetched", second["cache"], pages)
	}
	if none := read("none"); none["cache"] != nil {
		t.Errorf("a crawl without --cache has a cache object: %v", none["cache"])
	}
}

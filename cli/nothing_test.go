package cli

import (
	"path/filepath"

	"github.com/heedcrawl/heed/internal/testweb"
	"strings"
	"testing"
)

// A crawl of a host that refuses every connection ends, once robots.txt
// is given up on, with a summary that says no page was fetched and why,
// and exit status 3; the same crawl of a live host exits 0.
func TestCrawlThatFetchedNothingSaysSo(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runHeed(t, "crawl", "--agent", "HeedBot", "--progress", "never",
		"--robots-give-up", "1s", "--timeout", "2s", "--skiplog", filepath.Join(dir, "skipped.jsonl"),
		"http://127.0.0.1:1/")
	if code != exitNothingFetched {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNothingFetched, stdout, stderr)
	}
	for _, want := range []string{"crawl failed: no page was fetched", "robots.txt unreachable for every authority (1)", "robots-unreachable=1", "connection refused"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "heed: no page was fetched") {
		t.Errorf("stderr does not say it:\n%s", stderr)
	}

	site := startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 4, PageBytes: 256, LinksPerPage: 2, Seed: 3})
	code, stdout, stderr = runHeed(t, append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--skiplog", ""}, siteArgs(site)...)...)
	if code != 0 || strings.Contains(stdout, "no page was fetched") {
		t.Fatalf("a crawl of a live site: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

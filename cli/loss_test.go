package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
)

// TestUnwritableOutputFailsTheCrawl is issue 9, item 9: a feed or a skip
// log that cannot be written is a failed crawl, exit status 1, and the
// error says which file lost how many records.
func TestUnwritableOutputFailsTheCrawl(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	site := startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, PageBytes: 512, LinksPerPage: 3, DisallowFraction: 0.3, Seed: 5})
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"feed", []string{"--out", "/dev/full", "--format", "jsonl", "--skiplog", filepath.Join(dir, "skipped.jsonl")}, "the feed /dev/full is incomplete: 12 items could not be written"},
		{"skip log", []string{"--out", filepath.Join(dir, "pages.jsonl"), "--skiplog", "/dev/full"}, "the skip log /dev/full is incomplete: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never"}, tt.args...)
			code, out, errOut := runHeed(t, append(args, siteArgs(site)...)...)
			if code != 1 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "no space left on device") {
				t.Errorf("exit %d, want 1 with %q\nstdout:\n%s\nstderr:\n%s", code, tt.want, out, errOut)
			}
			if !strings.Contains(out, "pages:") {
				t.Errorf("no summary:\n%s", out)
			}
		})
	}
}

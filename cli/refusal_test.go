package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
)

// earlier is what a feed and a skip log hold from an earlier run: a
// refused command must leave them as they are.
const earlier = "{\"url\":\"http://earlier.test/\"}\n"

// refusal is one command line heed must refuse as a usage error.
type refusal struct {
	name string
	args []string
	// config, when not empty, is written to crawl.yaml and given as
	// --config.
	config string
	want   string // in the one line on stderr
	setup  func(t *testing.T)
}

// checkRefused runs each command in dir (the current directory) beside a
// feed and a skip log holding earlier results, and requires: exit status
// 2, no summary, one line on stderr naming the problem, both files as
// they were, no state made, and no request sent.
func checkRefused(t *testing.T, tests []refusal) {
	t.Helper()
	site := startSite(t, testweb.Generated{Hosts: 1, PagesPerHost: 4, PageBytes: 256, LinksPerPage: 2, Seed: 1})
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []string{"pages.jsonl", defaultSkipLog} {
				writeFile(t, f, earlier)
			}
			if tt.setup != nil {
				tt.setup(t)
			}
			// Bounded, should a command not be refused.
			args := append([]string{"crawl", "--progress", "never", "--delay", "0", "--robots-give-up", "2s", "--timeout", "1s"}, tt.args...)
			if tt.config != "" {
				writeFile(t, "crawl.yaml", tt.config)
				args = append(args, "--config", "crawl.yaml")
			}
			if !hasSeed(args) && tt.config == "" {
				args = append(args, site.Seeds()...)
			}
			code, out, errOut := runHeed(t, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if out != "" {
				t.Errorf("a refused command printed on stdout:\n%s", out)
			}
			if n := strings.Count(errOut, "\n"); n != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q: want one line with %q", errOut, tt.want)
			}
			for _, f := range []string{"pages.jsonl", defaultSkipLog} {
				if b, err := os.ReadFile(f); err != nil || string(b) != earlier {
					t.Errorf("%s changed by a refused command: %q, %v", f, b, err)
				}
			}
			if _, err := os.Stat("state"); err == nil {
				t.Error("a refused command made the state directory")
				os.RemoveAll("state")
			}
		})
	}
	if hits := site.Hits(); len(hits) > 0 {
		t.Errorf("refused commands sent %d requests, the first %s", len(hits), hits[0].Path)
	}
}

func hasSeed(args []string) bool {
	for _, a := range args {
		if strings.Contains(a, "://") || a == "notaurl" || a == "example.com" || strings.HasPrefix(a, "127.") {
			return true
		}
	}
	return false
}

// TestOutputsThatCoincideAreRefused is issue 9, item 8: the feed can be
// the skip log. Outputs naming one file, by name, by another spelling of
// the name, by a link, or inside a state directory, are refused before
// either is opened.
func TestOutputsThatCoincideAreRefused(t *testing.T) {
	link := func(t *testing.T) {
		os.Remove("link.jsonl")
		if err := os.Symlink(defaultSkipLog, "link.jsonl"); err != nil {
			t.Fatal(err)
		}
	}
	checkRefused(t, []refusal{
		{"feed is the default skip log", []string{"--agent", "HeedBot", "--out", "skipped.jsonl"}, "", "--skiplog skipped.jsonl (the default) and --out skipped.jsonl are the same file", nil},
		{"feed and skip log named alike", []string{"--agent", "HeedBot", "--out", "pages.jsonl", "--skiplog", "pages.jsonl"}, "", "are the same file", nil},
		{"another spelling", []string{"--agent", "HeedBot", "--out", "./sub/../pages.jsonl", "--skiplog", "pages.jsonl"}, "", "are the same file", nil},
		{"a link to the skip log", []string{"--agent", "HeedBot", "--out", "link.jsonl"}, "", "are the same file", link},
		{"feed is the state's skip log", []string{"--agent", "HeedBot", "--state", "state", "--out", "state/skipped.jsonl"}, "", "are the same file", nil},
		{"feed inside the state", []string{"--agent", "HeedBot", "--state", "state", "--out", "state/frontier.jsonl"}, "", "inside the state directory", nil},
		{"feed and skip log in the config", []string{"--agent", "HeedBot"}, "urls: [http://127.0.0.1:1/]\nout: pages.jsonl\nskiplog: pages.jsonl\n", "are the same file", nil},
	})
}

// TestRefusedOptionsTouchNoFile is issue 9, items 10 and 11 and the
// smaller items: an invalid option never truncates an earlier feed or
// skip log, prints no summary, and exits 2 with one clear line; so does a
// seed heed cannot crawl, a count or duration out of range, and a bad
// value in --config (its line named).
func TestRefusedOptionsTouchNoFile(t *testing.T) {
	feed := []string{"--out", "pages.jsonl"}
	with := func(args ...string) []string { return append(append([]string{}, feed...), args...) }
	checkRefused(t, []refusal{
		// item 10
		{"agent with a space", with("--agent", "Bad Bot"), "", `--agent "Bad Bot": not a product token`, nil},
		{"user agent without the token", with("--agent", "HeedBot", "--user-agent", "Mozilla/5.0"), "", "does not contain the product token", nil},
		{"negative delay", with("--agent", "HeedBot", "--delay", "-1s"), "", "--delay -1s: must not be negative", nil},
		// item 11
		{"user agent with CR LF", with("--agent", "HeedBot", "--user-agent", "HeedBot/1.0\r\nX-Evil: 1"), "", "control character", nil},
		{"user agent with a tab", with("--agent", "HeedBot", "--user-agent", "HeedBot/1.0\tx"), "", "control character", nil},
		// seeds
		{"not a URL", with("--agent", "HeedBot", "notaurl"), "", `seed "notaurl" is not a URL`, nil},
		{"ftp", with("--agent", "HeedBot", "ftp://x"), "", "not an http or https URL", nil},
		{"no scheme", with("--agent", "HeedBot", "example.com"), "", "names no scheme (write https://example.com", nil},
		{"host and port, no scheme", with("--agent", "HeedBot", "127.0.0.2:41193"), "", "names no scheme", nil},
		{"a number in the config's urls", with("--agent", "HeedBot"), "depth: 2\nurls: 5\n", "crawl.yaml: line 2: urls: \"5\" is not a URL", nil},
		{"a bad sitemap URL", with("--agent", "HeedBot", "--sitemap", "sitemap.xml", "http://127.0.0.1:1/"), "", "--sitemap \"sitemap.xml\"", nil},
		// counts and durations
		{"no workers", with("--agent", "HeedBot", "--concurrency", "0"), "", "--concurrency 0: must be at least 1", nil},
		{"no timeout", with("--agent", "HeedBot", "--timeout", "0"), "", "--timeout 0s: must be positive", nil},
		{"negative budget", with("--agent", "HeedBot", "--max-pages", "-3"), "", "--max-pages -3: must be 0 (no limit) or more", nil},
		{"negative max crawl delay", with("--agent", "HeedBot", "--max-crawl-delay", "-1s"), "", "--max-crawl-delay -1s: must be positive", nil},
		{"negative give-up", with("--agent", "HeedBot", "--robots-give-up", "-1s"), "", "--robots-give-up -1s: must be positive", nil},
		{"robots.txt kept two days", with("--agent", "HeedBot", "--robots-max-age", "48h"), "", "--robots-max-age 48h0m0s: at most 24h", nil},
		{"bad progress mode", with("--agent", "HeedBot", "--progress", "sometimes"), "", "--progress \"sometimes\"", nil},
		{"a bad value in the config names its line", with("--agent", "HeedBot"), "urls: [http://127.0.0.1:1/]\n\nconcurrency: 0\n", "crawl.yaml: line 3: concurrency: 0: must be at least 1", nil},
		{"a bad agent in the config names its line", feed, "agent: Bad Bot\nurls: [http://127.0.0.1:1/]\n", "crawl.yaml: line 1: agent", nil},
	})
}

// TestInventoryRefusesCoincidingOutputs: the inventory's rows and its
// skip log are two files too, and a refused inventory opens neither.
func TestInventoryRefusesCoincidingOutputs(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"--out", "skipped.jsonl"},
		{"--out", "rows.jsonl", "--skiplog", "rows.jsonl"},
		{"--out", "rows.jsonl", "--skiplog", "skipped.jsonl", "--delay", "-1s"},
		{"--out", "rows.jsonl", "--skiplog", "skipped.jsonl", "--user-agent", "HeedBot\n"},
	} {
		writeFile(t, "skipped.jsonl", earlier)
		writeFile(t, "rows.jsonl", earlier)
		code, out, errOut := runHeed(t, append(append([]string{"inventory", "--agent", "HeedBot"}, args...), "http://127.0.0.1:1/")...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, want 2 and one line\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
		for _, f := range []string{"skipped.jsonl", "rows.jsonl"} {
			if b, _ := os.ReadFile(f); string(b) != earlier {
				t.Errorf("%v: %s changed: %q", args, f, b)
			}
		}
	}
}

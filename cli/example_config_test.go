package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestExampleConfigHasEveryKey: examples/crawl.yaml names every crawl
// setting, active or commented out; it loads and passes crawl's checks,
// and each commented-out setting is valid too.
func TestExampleConfigHasEveryKey(t *testing.T) {
	data, err := os.ReadFile("../examples/crawl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := New("heed", WithSpider(Pages()))
	cmd := a.newCrawlCommand(nil)
	cfg, err := parseConfig(data, cmd.Flags())
	if err != nil {
		t.Fatalf("examples/crawl.yaml: %v", err)
	}
	keys := map[string]bool{}
	for k, vals := range cfg.values {
		keys[k] = true
		for _, v := range vals {
			if err := cmd.Flags().Set(k, v); err != nil {
				t.Errorf("examples/crawl.yaml: line %d: %s: %v", cfg.lines[k], k, err)
			}
		}
	}
	if len(cfg.urls) == 0 {
		t.Error("examples/crawl.yaml has no urls")
	}
	// Each commented-out setting, uncommented alone, is valid.
	commented := regexp.MustCompile(`^# ([a-z][a-z0-9-]*): (.*)$`)
	for i, line := range strings.Split(string(data), "\n") {
		m := commented.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		one, err := parseConfig([]byte(m[1]+": "+m[2]+"\n"), a.newCrawlCommand(nil).Flags())
		if err != nil {
			t.Errorf("examples/crawl.yaml: line %d, uncommented: %v", i+1, err)
			continue
		}
		fs := a.newCrawlCommand(nil).Flags()
		for _, v := range one.values[m[1]] {
			if err := fs.Set(m[1], v); err != nil {
				t.Errorf("examples/crawl.yaml: line %d: %s: %v", i+1, m[1], err)
			}
		}
		keys[m[1]] = true
	}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "config" && fl.Name != "help" && !keys[fl.Name] {
			t.Errorf("examples/crawl.yaml lacks the key %s (--%s): add it, with a comment", fl.Name, fl.Name)
		}
	})
	// The active settings pass every check of crawl: run it with the
	// outputs moved to a temporary directory, on a context already
	// cancelled, so that it stops as soon as it starts.
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	err = New("heed", WithSpider(Pages()), WithOutput(&out, &errb)).Crawl(ctx, []string{"--config", "../examples/crawl.yaml",
		"--progress", "never", "--out", filepath.Join(dir, "pages.jsonl"), "--skiplog", filepath.Join(dir, "skipped.jsonl"),
		"--summary-json", filepath.Join(dir, "summary.json")})
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.code == 2) {
		t.Fatalf("crawl --config examples/crawl.yaml refused: %v\n%s", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Errorf("the crawl did not run to its summary: %v\n%s%s", err, out.String(), errb.String())
	}
}

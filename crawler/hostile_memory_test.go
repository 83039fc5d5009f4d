package crawler_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// parseChildEnv makes the test binary a child that crawls the hostile
// link pages and reports its peak memory.
const parseChildEnv = "HEED_PARSE_MEMORY_CHILD"

// vmHWM returns the process's peak resident set (VmHWM) in bytes.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// TestParseMemoryChild is the child's side of TestParseMemoryIsBounded:
// it crawls N copies of a 10 MiB page of <a href=/x>a</a> at once, with
// callbacks that need the page's tree, and prints its peak RSS.
func TestParseMemoryChild(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(parseChildEnv))
	if err != nil {
		t.Skip("runs as a child of TestParseMemoryIsBounded")
	}
	hostile, err := testweb.StartHostile(testweb.HostileConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer hostile.Close()
	c, err := crawler.New("HeedBot", crawler.WithWorkers(n), crawler.WithDelay(0),
		crawler.WithConcurrencyPerHost(n), crawler.WithTimeout(20*time.Second), crawler.WithMaxDepth(1))
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("title", func(e *crawler.HTMLElement) {})
	var seeds []string
	for i := 0; i < n; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/links?copy=%d", hostile.Links, i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := c.Run(ctx, seeds...)
	if err != nil {
		t.Fatal(err)
	}
	hwm, err := vmHWM()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("pages=%d links-capped=%d vmhwm=%d\n", sum.Stats.Pages, sum.Stats.LinksCapped, hwm)
}

// childPeak runs TestParseMemoryChild for n pages at once and returns its
// peak RSS.
func childPeak(t *testing.T, n int) (peak int64, out string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestParseMemoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", parseChildEnv, n))
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, "vmhwm="); i >= 0 {
			v, err := strconv.ParseInt(line[i+len("vmhwm="):], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v, line
		}
	}
	t.Fatalf("child printed no peak:\n%s", b)
	return 0, ""
}

// TestParseMemoryIsBounded: a 10 MiB page of <a href=/x>a</a> (655,360
// links), alone and eight at once, must not cost memory in proportion to
// what the page holds: the crawl's peak RSS stays under a bound made of
// what the limits allow (the bodies themselves, 10 MiB each; two trees of
// at most DefaultMaxPageElements elements; DefaultMaxLinksPerPage links a
// page), not of what the page holds. Before the limits the peaks were 587
// MiB and 5,104 MiB.
func TestParseMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child crawls")
	}
	for _, tc := range []struct {
		pages int
		bound int64
	}{{1, 160 << 20}, {8, 400 << 20}} {
		peak, line := childPeak(t, tc.pages)
		t.Logf("%d page(s) at once: peak RSS %d MiB (%s)", tc.pages, peak>>20, line)
		if peak > tc.bound {
			t.Errorf("%d page(s) of 10 MiB of links at once: peak RSS %d MiB, over the bound of %d MiB", tc.pages, peak>>20, tc.bound>>20)
		}
		if strings.Contains(line, "links-capped=0 ") {
			t.Errorf("no links were reported capped: %s", line)
		}
	}
}

// TestPageLimitsAreReported: a page over the element limit is parsed in
// part and counted; links over the page's link limit are counted, not
// followed.
func TestPageLimitsAreReported(t *testing.T) {
	t.Parallel()
	hostile := startHostile(t, testweb.HostileConfig{LinkPageBytes: 4096 * len(testweb.HostileLinkTag)})
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithMaxDepth(1),
		crawler.WithMaxPageElements(1000), crawler.WithMaxLinksPerPage(100))
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { seen++; e.Follow(e.Attr("href")) })
	sum := run(t, c, hostile.Links+"/links")
	s := sum.Stats
	if s.PagesCut != 1 || seen != 1000 {
		t.Errorf("pages cut %d, links seen by the callback %d; want 1 and 1000 (the element limit)", s.PagesCut, seen)
	}
	if s.PagesCapped != 1 || s.LinksCapped != 900 {
		t.Errorf("pages capped %d, links capped %d; want 1 and 900", s.PagesCapped, s.LinksCapped)
	}
	if s.Pages != 2 {
		t.Errorf("%d pages fetched, want 2 (the page and /x)", s.Pages)
	}
}

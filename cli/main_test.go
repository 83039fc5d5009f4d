package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
)

// buildHeed builds the heed binary (cmd/heed, this package's thinnest
// user).
func buildHeed(t *testing.T) string {
	t.Helper()
	return buildCommand(t, "github.com/heedcrawl/heed/cmd/heed")
}

// buildCommand builds the program pkg into the test's directory.
func buildCommand(t *testing.T, pkg string) string {
	t.Helper()
	return buildCommandWith(t, pkg)
}

// buildCommandWith builds pkg with extra go build flags.
func buildCommandWith(t *testing.T, pkg string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, pkg)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// run runs heed's command line (the page spider, no demo) in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return New("heed", WithSpider(Pages()), WithOutput(stdout, stderr)).Run(ctx, args)
}

func runHeed(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func lines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// TestInterruptLeavesCompleteLogs runs the built binary, interrupts it
// with SIGINT mid-crawl, and checks that the items file and the skip log
// are complete: every line a whole record, and every URL discovered on a
// fetched page either fetched or in the skip log.
func TestInterruptLeavesCompleteLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHeed(t)
	site := startSite(t, testweb.Generated{Hosts: 3, PagesPerHost: 150, PageBytes: 2048, LinksPerPage: 6, CrossHostFraction: 0.2, DisallowFraction: 0.1, Seed: 7})
	dir := t.TempDir()
	items, skips := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "skipped.jsonl")
	args := []string{"crawl", "--agent", "HeedBot", "--out", items, "--skiplog", skips, "--delay", "30ms", "--progress", "never"}
	cmd := exec.Command(bin, append(args, siteArgs(site)...)...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for lines(t, items) < 20 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no progress in 30 s:\n%s", stdout.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "crawl interrupted") {
		t.Errorf("no interruption notice:\n%s", stdout.String())
	}

	fetched := heedtest.ReadFeed(t, items)
	skipped := heedtest.ReadSkipLog(t, skips)

	interrupted := 0
	for _, r := range skipped {
		if r.Reason == skiplog.Interrupted {
			interrupted++
		}
	}
	if interrupted == 0 {
		t.Error("no queued URL was recorded as interrupted")
	}
	// Every link on every fetched page is accounted for.
	client := site.Client()
	for page := range fetched {
		resp, err := client.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		base, _ := url.Parse(page)
		doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
			href, _ := s.Attr("href")
			u, err := base.Parse(href)
			if err != nil {
				return
			}
			c, err := frontier.Canonicalize(u.String())
			if err != nil {
				t.Errorf("link %q: %v", href, err)
				return
			}
			if fetched[c] == 0 && skipped[c] == nil {
				t.Errorf("%s (linked from %s) was neither fetched nor skip-logged", c, page)
			}
		})
	}
	t.Logf("fetched %d, skipped %d (%d interrupted); output:\n%s", len(fetched), len(skipped), interrupted, stdout.String())
}

func TestRobotsCheckAndLint(t *testing.T) {
	dir := t.TempDir()
	robotsPath := filepath.Join(dir, "robots.txt")
	os.WriteFile(robotsPath, []byte("User-agent: *\nDisallow: /\n\nUser-agent: HeedBot\nDisallow: /private/\nAllow: /private/open\n"), 0o644)

	code, out, _ := runHeed(t, "robots", "check", "--agent", "HeedBot", "--robots", robotsPath, "--json",
		"http://a.test/private/x", "http://a.test/private/open", "http://a.test/public")
	if code != 1 {
		t.Errorf("exit %d, want 1 (a URL is disallowed)", code)
	}
	var got []checkResult
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var r checkResult
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 3 {
		t.Fatalf("%d results:\n%s", len(got), out)
	}
	if got[0].Allowed || got[0].Line != 5 || got[0].Rule != "Disallow: /private/" || len(got[0].Group) != 1 || got[0].Group[0] != "HeedBot" {
		t.Errorf("first: %+v", got[0])
	}
	if !got[1].Allowed || got[1].Line != 6 || !got[2].Allowed || got[2].Line != 0 || got[2].Rule != "" {
		t.Errorf("second and third: %+v %+v", got[1], got[2])
	}

	if code, _, _ := runHeed(t, "robots", "check", "--agent", "HeedBot", "--robots", robotsPath, "http://a.test/public"); code != 0 {
		t.Errorf("all allowed: exit %d, want 0", code)
	}
	if code, _, _ := runHeed(t, "robots", "check", "--robots", robotsPath, "http://a.test/"); code != 2 {
		t.Errorf("missing --agent: exit %d, want 2", code)
	}
	if code, out, _ := runHeed(t, "robots", "lint", robotsPath); code != 1 || !strings.Contains(out, "named-group-drops-star-rules") {
		t.Errorf("lint: exit %d, want 1:\n%s", code, out)
	}
	clean := filepath.Join(dir, "clean.txt")
	os.WriteFile(clean, []byte("User-agent: *\nDisallow: /tmp/\n"), 0o644)
	if code, out, _ := runHeed(t, "robots", "lint", clean); code != 0 {
		t.Errorf("clean file: exit %d:\n%s", code, out)
	}
	if code, _, _ := runHeed(t, "robots", "lint", filepath.Join(dir, "missing.txt")); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

// TestRobotsCheckFetches checks against each URL's own robots.txt, with
// RFC 9309's status semantics, against the scenario site.
func TestRobotsCheckFetches(t *testing.T) {
	site, err := testweb.StartScenario()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	main, broken, norobots := site.Host(testweb.HostMain), site.Host(testweb.HostBroken), site.Host(testweb.HostNoRobots)
	code, out, errOut := runHeed(t, "robots", "check", "--agent", "HeedBot", "--json",
		main.URL("/private/secret"), broken.URL("/a"), norobots.URL("/a"))
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var got []checkResult
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var r checkResult
		dec.Decode(&r)
		got = append(got, r)
	}
	exp := site.Expected("HeedBot")
	want := exp.Skipped[main.URL("/private/secret")]
	if got[0].Allowed || got[0].Line != want.Line || got[0].Rule != want.Rule || got[0].Reason != skiplog.RobotsDisallow {
		t.Errorf("main: %+v, want line %d %q", got[0], want.Line, want.Rule)
	}
	if got[1].Allowed || got[1].RobotsState != "unreachable" || got[1].RobotsStatus != 500 || got[1].Reason != skiplog.RobotsUnreachable {
		t.Errorf("broken: %+v", got[1])
	}
	if !got[2].Allowed || got[2].RobotsState != "unavailable" || got[2].RobotsStatus != 404 {
		t.Errorf("norobots: %+v", got[2])
	}
}

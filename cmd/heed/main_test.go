package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/cli"
	"github.com/heedcrawl/heed/internal/testweb"
)

func TestDemoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the scenario site")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := newApp(cli.WithOutput(&stdout, &stderr)).Run(context.Background(), []string{"demo", "--dir", dir})
	out, errOut := stdout.String(), stderr.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"pages:", "robots-disallow", "robots-unreachable", "skip log: " + filepath.Join(dir, "skipped.jsonl")} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if empty(filepath.Join(dir, "skipped.jsonl")) || empty(filepath.Join(dir, "pages.jsonl")) {
		t.Error("demo wrote no skip log or no pages")
	}
}

func empty(path string) bool {
	b, _ := os.ReadFile(path)
	return len(b) == 0
}

// TestDemoServeIsCrawledWithCAFile: heed demo --serve keeps its site up
// and writes its https host's CA; a crawl by hand reaches that host with
// --ca-file, and fails on the certificate without it.
func TestDemoServeIsCrawledWithCAFile(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- newApp(cli.WithOutput(pw, io.Discard)).Run(ctx, []string{"demo", "--serve", "--dir", dir})
		pw.Close()
	}()
	defer func() {
		cancel()
		go io.Copy(io.Discard, pr)
		if code := <-done; code != 0 {
			t.Errorf("demo --serve exit %d", code)
		}
	}()
	var try string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "try: ") {
			try = strings.TrimPrefix(l, "try: ")
			break
		}
	}
	fields := strings.Fields(try)
	if len(fields) < 6 || fields[4] != "--ca-file" || fields[5] != filepath.Join(dir, "ca.pem") {
		t.Fatalf("demo --serve says %q; want a crawl command with --ca-file %s", try, filepath.Join(dir, "ca.pem"))
	}
	seed := fields[len(fields)-1]
	crawl := func(extra ...string) (int, string) {
		var out, errb bytes.Buffer
		args := append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--skiplog", "",
			"--max-pages", "3", "--robots-give-up", "1s", "--retries", "0"}, extra...)
		code := newApp(cli.WithOutput(&out, &errb)).Run(context.Background(), append(args, seed))
		return code, out.String() + errb.String()
	}
	code, out := crawl("--ca-file", filepath.Join(dir, "ca.pem"))
	if code != 0 || !strings.Contains(out, "statuses: 200=") {
		t.Fatalf("crawl --ca-file: exit %d\n%s", code, out)
	}
	if _, out := crawl(); !strings.Contains(out, "robots-unreachable") {
		t.Errorf("crawl without --ca-file reached the https host:\n%s", out)
	}
}

// TestDemoHelpCountsTheSite: demo --help gives the number of hosts and
// addresses the site it starts has.
func TestDemoHelpCountsTheSite(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := newApp(cli.WithOutput(&stdout, &stderr)).Run(context.Background(), []string{"demo", "--help"}); code != 0 {
		t.Fatalf("exit %d %s", code, stderr.String())
	}
	site, err := testweb.StartScenario()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	addrs := map[string]bool{}
	for _, h := range site.Hosts() {
		u, err := url.Parse(h.BaseURL)
		if err != nil {
			t.Fatal(err)
		}
		addrs[u.Hostname()] = true
	}
	want := fmt.Sprintf("(%d hosts on %d addresses 127.0.0.x,", len(site.Hosts()), len(addrs))
	if help := stdout.String() + stderr.String(); !strings.Contains(help, want) {
		t.Errorf("demo --help lacks %q:\n%s", want, help)
	}
}

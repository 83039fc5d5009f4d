package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
)

// fleetDelay is the floor every process of the fleet tests paces by.
const fleetDelay = 30 * time.Millisecond

// fleetProc is one heed process of a fleet test.
type fleetProc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	log  string // its skip log
	done chan error
}

// testFleet is a fleet test's site, Redis and processes.
type testFleet struct {
	t     *testing.T
	bin   string
	dir   string
	site  *testweb.Site
	srv   *redistest.Server
	id    string
	procs []*fleetProc
}

func newFleet(t *testing.T, bin string, g testweb.Generated, opts ...redistest.Option) *testFleet {
	return &testFleet{t: t, bin: bin, dir: t.TempDir(), site: startSite(t, g), srv: redistest.Start(t, opts...),
		id: fmt.Sprintf("fleet-test-%d", time.Now().UnixNano())}
}

// start starts n more processes of the crawl; extra flags go to each.
func (f *testFleet) start(n int, extra ...string) {
	for range n {
		i := len(f.procs)
		p := &fleetProc{out: &syncBuffer{}, log: filepath.Join(f.dir, fmt.Sprintf("skipped-%d.jsonl", i)), done: make(chan error, 1)}
		args := []string{"crawl", "--agent", "HeedBot", "--redis", f.srv.URL(0), "--crawl-id", f.id,
			"--delay", fleetDelay.String(), "--concurrency", "4", "--per-host", "4", "--timeout", "2s",
			"--progress", "never", "--skiplog", p.log, "--user-agent", procUA(i)}
		args = append(append(args, extra...), siteArgs(f.site)...)
		p.cmd = exec.Command(f.bin, args...)
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
		if err := p.cmd.Start(); err != nil {
			f.t.Fatal(err)
		}
		f.t.Cleanup(func() { p.cmd.Process.Kill() })
		go func() { p.done <- p.cmd.Wait() }()
		f.procs = append(f.procs, p)
	}
}

// procUA is the User-Agent of process i, so that the site's hit log tells
// the processes apart.
func procUA(i int) string {
	return fmt.Sprintf("Mozilla/5.0 (compatible; HeedBot/1.0; fleet test process %d)", i)
}

// wait waits for every process not killed to exit with status 0.
func (f *testFleet) wait(killed map[int]bool, limit time.Duration) {
	f.t.Helper()
	deadline := time.After(limit)
	for i, p := range f.procs {
		if killed[i] {
			continue
		}
		select {
		case err := <-p.done:
			if err != nil {
				f.t.Fatalf("process %d: %v\n%s", i, err, p.out.String())
			}
		case <-deadline:
			for j, q := range f.procs {
				f.t.Logf("process %d output:\n%s", j, q.out.String())
			}
			f.t.Fatalf("the fleet did not finish within %v", limit)
		}
	}
}

// pageHits counts the site's page requests so far.
func (f *testFleet) pageHits() int {
	n := 0
	for _, c := range f.site.PageRequests() {
		n += c
	}
	return n
}

// waitForHits waits until the site has answered n page requests.
func (f *testFleet) waitForHits(n int, limit time.Duration) {
	f.t.Helper()
	deadline := time.Now().Add(limit)
	for f.pageHits() < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("only %d page requests after %v", f.pageHits(), limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// check compares the crawl with the site's oracle: every expected page
// fetched, at most allowDup of them twice (leases that expired), nothing
// unexpected; requests to each authority at least the floor apart; and
// the skip logs, merged by heed skiplog merge, exactly the expected set.
func (f *testFleet) check(allowDup int) {
	t := f.t
	t.Helper()
	exp := f.site.Expected("HeedBot")
	dups := 0
	for _, n := range fetchedAgain(t, f.site.PageRequests(), exp) {
		dups += n
	}
	if dups > allowDup {
		t.Errorf("%d duplicate page fetches; at most %d allowed", dups, allowDup)
	}

	minGap := time.Hour
	eachGap(f.site, func(a string, prev, next testweb.Hit) {
		gap := next.Time.Sub(prev.Time)
		minGap = min(minGap, gap)
		if gap < fleetDelay {
			t.Errorf("%s: %s then %s arrived %v apart; the floor is %v", a, prev.Path, next.Path, gap, fleetDelay)
		}
	})

	merged := filepath.Join(f.dir, "merged.jsonl")
	var logs []string
	for _, p := range f.procs {
		logs = append(logs, p.log)
	}
	code, stdout, stderr := runHeed(t, append([]string{"skiplog", "merge", merged}, logs...)...)
	if code != 0 {
		t.Fatalf("heed skiplog merge: exit %d: %s", code, stderr)
	}
	checkSkipReasons(t, heedtest.ReadSkipLog(t, merged), exp.Skipped)
	t.Logf("%d processes: %d pages expected, %d duplicate fetches, %d skips expected; smallest gap %v; merge: %s",
		len(f.procs), len(exp.Fetched), dups, len(exp.Skipped), minGap, strings.TrimSpace(lastLine(stdout)))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func fleetSite(hosts, pages int) testweb.Generated {
	return testweb.Generated{Hosts: hosts, PagesPerHost: pages, PageBytes: 1024, LinksPerPage: 5,
		CrossHostFraction: 0.2, DisallowFraction: 0.1, Seed: 11}
}

// TestFleet runs heed crawl --redis as real processes, sharing one crawl
// of a generated site through one redis-server.
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs fleets of it")
	}
	bin := buildHeed(t)

	// Two and four processes: every page fetched once, pacing held
	// across processes, the merged skip logs exactly the expected set,
	// and each process reports the crawl-wide counts.
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d processes", n), func(t *testing.T) {
			f := newFleet(t, bin, fleetSite(6, 25))
			f.start(n)
			f.wait(nil, 2*time.Minute)
			f.check(0)
			want := fmt.Sprintf("crawl %s (all processes): %d pages", f.id, len(f.site.Expected("HeedBot").Fetched))
			for i, p := range f.procs {
				out := p.out.String()
				if !strings.Contains(out, "(all processes)") || !strings.Contains(out, "shared through") {
					t.Errorf("process %d did not report the shared crawl:\n%s", i, out)
				}
				if strings.Contains(out, "complete: nothing queued") && !strings.Contains(out, want) {
					t.Errorf("process %d finished last but reports other counts (want %q):\n%s", i, want, out)
				}
			}
		})
	}

	// A process killed with SIGKILL mid-crawl, while it has a request in
	// flight (responses take 150 ms): its lease comes back after the lease
	// timeout, another process fetches that URL again, and the others
	// complete the crawl. Only the requests it had in flight may be
	// fetched twice.
	t.Run("SIGKILL", func(t *testing.T) {
		g := fleetSite(4, 30)
		g.Latency = 150 * time.Millisecond
		f := newFleet(t, bin, g)
		const lease = time.Second
		f.start(2, "--lease-timeout", lease.String())
		f.waitForHits(10, time.Minute)
		var victim testweb.Hit
		deadline := time.Now().Add(time.Minute)
		for victim.Path == "" {
			if time.Now().After(deadline) {
				t.Fatal("process 0 never had a page request in flight")
			}
			for _, h := range f.site.Hits() {
				if h.UserAgent == procUA(0) && h.Done.IsZero() && h.Path != "/robots.txt" {
					victim = h
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := f.procs[0].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		<-f.procs[0].done
		f.wait(map[int]bool{0: true}, 2*time.Minute)
		f.check(4)
		var again []testweb.Hit
		for _, h := range f.site.Hits() {
			if h.Authority == victim.Authority && h.Path == victim.Path && h.Time.After(victim.Time) {
				again = append(again, h)
			}
		}
		if len(again) != 1 || again[0].UserAgent != procUA(1) {
			t.Fatalf("%s%s, in flight in the killed process, was fetched again %d times; want once, by the survivor", victim.Authority, victim.Path, len(again))
		}
		// Renewed every third of the timeout, a lease outlives its
		// process by two thirds of it at least.
		if d := again[0].Time.Sub(killed); d < lease/2 {
			t.Errorf("the killed process's request came back %v after the kill; the lease timeout is %v", d, lease)
		}
		out := f.procs[1].out.String()
		if !strings.Contains(out, "complete: nothing queued") || strings.Contains(out, " 0 leases reclaimed") {
			t.Errorf("the survivor did not complete the crawl and report the reclaimed lease:\n%s", out)
		}
	})

	// Redis restarted mid-crawl (with its append-only file): the
	// processes wait, say so, and complete the crawl.
	t.Run("Redis restart", func(t *testing.T) {
		f := newFleet(t, bin, fleetSite(4, 40), redistest.WithPersistence())
		f.start(2, "--lease-timeout", "10s")
		f.waitForHits(30, time.Minute)
		f.srv.Stop()
		// Long enough for go-redis's own retries to give up, so that
		// heed's store sees the outage.
		time.Sleep(4 * time.Second)
		f.srv.Restart(t)
		f.wait(nil, 3*time.Minute)
		f.check(0)
		for i, p := range f.procs {
			out := p.out.String()
			if !strings.Contains(out, "redis unreachable") || !strings.Contains(out, "redis reachable again") {
				t.Errorf("process %d did not say that Redis went away and came back:\n%s", i, out)
			}
		}
	})
}

// A process stopped with SIGINT leaves its queue to the others: it exits
// with 130 and skip-logs nothing as interrupted, and a process started
// later finishes the crawl.
func TestFleetInterruptLeavesTheQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildHeed(t)
	f := newFleet(t, bin, fleetSite(3, 40))
	f.start(1)
	f.waitForHits(20, time.Minute)
	if err := f.procs[0].cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := <-f.procs[0].done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v; want 130\n%s", err, f.procs[0].out.String())
	}
	if !strings.Contains(f.procs[0].out.String(), "stay queued for the other processes") {
		t.Errorf("no word of the queue left to others:\n%s", f.procs[0].out.String())
	}
	b, _ := os.ReadFile(f.procs[0].log)
	if bytes.Contains(b, []byte(`"interrupted"`)) {
		t.Errorf("the stopped process skip-logged URLs as interrupted:\n%s", b)
	}
	f.procs[0].done <- nil // waited for already
	f.start(1)
	f.wait(nil, 2*time.Minute)
	f.check(0)
}

// Settings a shared crawl cannot take are usage errors (exit 2), found
// before Redis is contacted.
func TestFleetUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--crawl-id", "x"}, "--crawl-id needs --redis"},
		{[]string{"--redis", "redis://127.0.0.1:1/0", "--state", dir}, "--redis with --state"},
		{[]string{"--redis", "http://127.0.0.1:1/0"}, "--redis http"},
		{[]string{"--redis", "redis://127.0.0.1:1/0", "--max-pages", "5"}, "page budget"},
		{[]string{"--redis", "redis://127.0.0.1:1/0", "--crawl-id", "has space"}, "crawl id"},
		{[]string{"--redis", "redis://127.0.0.1:1/0", "--lease-timeout", "0s"}, "--lease-timeout"},
	} {
		args := append([]string{"crawl", "--agent", "HeedBot", "--progress", "never", "--skiplog", filepath.Join(dir, "s.jsonl")}, tt.args...)
		code, _, stderr := runHeed(t, append(args, "http://127.0.0.1:9/")...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if a, b := defaultCrawlID("HeedBot", []string{"http://b/", "http://a/"}, nil), defaultCrawlID("HeedBot", []string{"http://a/", "http://b/"}, nil); a != b || !strings.HasPrefix(a, "HeedBot-") {
		t.Errorf("default crawl ids %q and %q; want one, whatever the seeds' order", a, b)
	}
	if got := redactURL("redis://user:secret@10.0.0.5:6379/0"); strings.Contains(got, "secret") {
		t.Errorf("redactURL kept the password: %s", got)
	}
}

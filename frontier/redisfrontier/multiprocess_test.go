package redisfrontier_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// Child processes are this test binary run again with -test.run naming
// TestChildProcess and these variables set.
const (
	envChild  = "HEED_REDISFRONTIER_CHILD" // the child's job: "crawl" or "hold"
	envAddr   = "HEED_REDISFRONTIER_ADDR"
	envPrefix = "HEED_REDISFRONTIER_PREFIX"
	envArg    = "HEED_REDISFRONTIER_ARG"
)

// graph is the site the processes crawl: page n links to 2n+1, 2n+2 and
// back to n/2, so that every page is found once as new and again as a
// duplicate; pages are spread over hosts.
type graph struct{ pages, hosts int }

func (g graph) url(n int) string { return fmt.Sprintf("http://h%d.example/p/%d", n%g.hosts, n) }

func (g graph) page(u string) int {
	n, err := strconv.Atoi(u[strings.LastIndexByte(u, '/')+1:])
	if err != nil {
		return -1
	}
	return n
}

var crawlGraph = graph{pages: 1500, hosts: 23}

// TestChildProcess is the body of a child process; it does nothing in a
// normal run.
func TestChildProcess(t *testing.T) {
	job := os.Getenv(envChild)
	if job == "" {
		t.Skip("run only as a child process of the multi-process tests")
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(envAddr)})
	s, err := redisstore.NewStore(rdb, os.Getenv(envPrefix))
	if err != nil {
		fail("store: %v", err)
	}
	ctx := context.Background()
	switch job {
	case "crawl":
		f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithFrontierOptions(frontier.WithLeasesPerAuthority(2)))
		if err != nil {
			fail("frontier: %v", err)
		}
		childCrawl(ctx, f)
	case "hold":
		ttl, _ := time.ParseDuration(os.Getenv(envArg))
		f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithLeaseTimeout(ttl))
		if err != nil {
			fail("frontier: %v", err)
		}
		for i := 0; i < 3; i++ {
			r, err := f.Next(ctx)
			if err != nil {
				fail("next: %v", err)
			}
			fmt.Printf("HELD %s\n", r.URL)
		}
		fmt.Println("READY")
		time.Sleep(time.Minute) // until killed
		fail("not killed")
	}
	os.Exit(0)
}

func fail(format string, args ...any) {
	fmt.Printf("ERROR "+format+"\n", args...)
	os.Exit(1)
}

// childCrawl runs four workers that take pages, push their links and mark
// them done, printing "DONE n" for each, until the crawl is exhausted.
func childCrawl(ctx context.Context, f *redisfrontier.Frontier) {
	g := crawlGraph
	done := make(chan error, 4)
	lines := make(chan string, 64)
	for w := 0; w < 4; w++ {
		go func() {
			for {
				r, err := f.Next(ctx)
				if errors.Is(err, frontier.ErrExhausted) {
					done <- nil
					return
				}
				if err != nil {
					done <- err
					return
				}
				n := g.page(r.URL)
				for _, c := range []int{2*n + 1, 2*n + 2, n / 2} {
					if c < g.pages {
						if _, err := f.Push(ctx, &frontier.Request{URL: g.url(c), Depth: r.Depth + 1}); err != nil {
							done <- err
							return
						}
					}
				}
				lines <- fmt.Sprintf("DONE %d", n)
				if err := f.Done(ctx, r); err != nil {
					done <- err
					return
				}
			}
		}()
	}
	finished := 0
	for finished < 4 {
		select {
		case l := <-lines:
			fmt.Println(l)
		case err := <-done:
			if err != nil {
				fail("worker: %v", err)
			}
			finished++
		}
	}
	for {
		select {
		case l := <-lines:
			fmt.Println(l)
		default:
			return
		}
	}
}

// child is a running child process and the lines it printed.
type child struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan error
}

func startChild(t *testing.T, job, addr, prefix, arg string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+job, envAddr+"="+addr, envPrefix+"="+prefix, envArg+"="+arg)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 4096), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return c
}

// Four processes crawl one graph through one Redis: every page is done
// exactly once, by one of them.
func TestMultiProcessCrawl(t *testing.T) {
	srv, rdb := startRedis(t)
	prefix := newPrefix(t)
	f := newFrontier(t, newStore(t, rdb, prefix))
	push(t, f, crawlGraph.url(0))

	var kids []*child
	for i := 0; i < 4; i++ {
		kids = append(kids, startChild(t, "crawl", srv.Addr, prefix, ""))
	}
	doneBy := make(map[int][]int)
	deadline := time.After(2 * time.Minute)
	for i, k := range kids {
		for open := true; open; {
			select {
			case l, ok := <-k.lines:
				if !ok {
					open = false
					break
				}
				if strings.HasPrefix(l, "ERROR") {
					t.Errorf("child %d: %s", i, l)
				}
				if n, ok := strings.CutPrefix(l, "DONE "); ok {
					p, _ := strconv.Atoi(n)
					doneBy[p] = append(doneBy[p], i)
				}
			case <-deadline:
				t.Fatal("the children did not finish within 2 minutes")
			}
		}
		if err := <-k.done; err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	busy := make(map[int]int)
	for n := 0; n < crawlGraph.pages; n++ {
		if len(doneBy[n]) != 1 {
			t.Errorf("page %d done by children %v; want exactly one", n, doneBy[n])
		} else {
			busy[doneBy[n][0]]++
		}
	}
	c := counts(t, f)
	if c.Queued != 0 || c.Leased != 0 || c.Seen != crawlGraph.pages || c.Reclaimed != 0 {
		t.Errorf("Counts = %+v; want everything done once", c)
	}
	t.Logf("pages done per child: %v", busy)
}

// A process killed while it holds leases: the leases expire and their
// requests come back, first in their queues, to the living process; every
// URL is still handed out, and the reclaimed ones are counted.
func TestKilledProcessLeasesComeBack(t *testing.T) {
	srv, rdb := startRedis(t)
	prefix := newPrefix(t)
	const ttl = time.Second
	f := newFrontier(t, newStore(t, rdb, prefix), redisfrontier.WithLeaseTimeout(ttl),
		redisfrontier.WithPollInterval(50*time.Millisecond))
	var urls []string
	for i := 0; i < 20; i++ {
		urls = append(urls, fmt.Sprintf("http://h%d.example/%d", i%5, i))
	}
	push(t, f, urls...)

	k := startChild(t, "hold", srv.Addr, prefix, ttl.String())
	held := make(map[string]bool)
	for l := range k.lines {
		if u, ok := strings.CutPrefix(l, "HELD "); ok {
			held[u] = true
		}
		if strings.HasPrefix(l, "ERROR") {
			t.Fatalf("child: %s", l)
		}
		if l == "READY" {
			break
		}
	}
	if len(held) != 3 {
		t.Fatalf("the child held %d leases; want 3", len(held))
	}
	if err := k.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-k.done

	got := make(map[string]int)
	for {
		r, err := nextErr(f, failsafe)
		if errors.Is(err, frontier.ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got[r.URL]++
		if err := f.Done(context.Background(), r); err != nil {
			t.Fatalf("Done: %v", err)
		}
	}
	for _, u := range urls {
		if got[u] != 1 {
			t.Errorf("%s handed out %d times to the living process; want 1", u, got[u])
		}
	}
	if c := counts(t, f); c.Reclaimed != 3 {
		t.Errorf("Reclaimed = %d; want the dead process's 3", c.Reclaimed)
	}
}

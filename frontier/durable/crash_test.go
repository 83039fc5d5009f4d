package durable_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
)

// crashEnv names the state directory a child process crawls in until it is
// killed.
const crashEnv = "HEED_DURABLE_CRASH_CHILD"

// TestKill9 runs a crawl-like loop in a child process (this test binary,
// re-run with crashEnv set), kills it with SIGKILL at a different moment
// each time, and reopens its state. The child prints a line after each
// call returns: "A url" for a Push that returned Added, "L url" for a
// request Next handed out, "D url" for a Done that returned. Then:
//
//   - every URL added and never handed out is queued: Push loses nothing;
//   - every URL handed out and not Done is queued again (but one: the
//     child's last Done may have returned unprinted);
//   - those leased requests come first in their authorities' queues,
//     before every request that was never handed out;
//   - every URL added is a Duplicate when pushed again: the seen set is
//     intact.
func TestKill9(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, lines := range []int{300, 1500, 4000} {
		t.Run(fmt.Sprint("after=", lines), func(t *testing.T) {
			killAndCheck(t, lines+rand.IntN(200))
		})
	}
}

func killAndCheck(t *testing.T, lines int) {
	dir := filepath.Join(t.TempDir(), "state")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKill9$")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	added, leased, done := map[string]bool{}, map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(out)
	n := 0
	for sc.Scan() {
		op, u, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch op {
		case "A":
			added[u] = true
		case "L":
			leased[u] = true
		case "D":
			done[u] = true
		}
		if n++; n == lines {
			// SIGKILL: no deferred call, no Close. What the child printed
			// before it died is still in the pipe: read on to the end.
			cmd.Process.Kill()
		}
	}
	cmd.Wait()
	if n < lines {
		t.Fatalf("child printed %d lines and stopped; want %d", n, lines)
	}
	t.Logf("killed at line %d of %d: %d added, %d leased, %d done", lines, n, len(added), len(leased), len(done))

	// heed status reads a crashed state as it is: leases still out.
	rd, err := durable.OpenReader(dir)
	if err != nil {
		t.Fatalf("OpenReader after SIGKILL: %v", err)
	}
	st, err := rd.Status()
	rd.Close()
	if err != nil || st.Leased == 0 || st.Seen < len(added) {
		t.Errorf("Reader.Status after SIGKILL = %+v, %v; want leases out and at least %d seen", st, err, len(added))
	}

	f, err := durable.Open(dir)
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer f.Close()
	if st := f.Stats(); st.Leased != 0 || st.Seen < len(added) {
		t.Errorf("Stats after reopen = %+v; want nothing leased, at least %d seen", st, len(added))
	}
	for u := range added {
		if res, err := f.Push(context.Background(), &frontier.Request{URL: u}); res != frontier.Duplicate || err != nil {
			t.Errorf("Push(%s) after reopen = %v, %v; want duplicate", u, res, err)
		}
	}
	queued := map[string]bool{}
	var order []string
	if err := f.Drain(context.Background(), func(r *frontier.Request) {
		if queued[r.URL] {
			t.Errorf("%s is queued twice", r.URL)
		}
		queued[r.URL] = true
		order = append(order, r.URL)
	}); err != nil {
		t.Fatal(err)
	}
	for u := range added {
		if !leased[u] && !queued[u] {
			t.Errorf("%s was added, never handed out, and is lost", u)
		}
	}
	inFlight := map[string]bool{}
	var missing []string
	for u := range leased {
		if !added[u] {
			t.Errorf("Next handed out %s, which was never added", u)
		}
		if !done[u] {
			inFlight[u] = true
			if !queued[u] {
				missing = append(missing, u)
			}
		}
	}
	// The child's last Done may have returned without being printed.
	if len(missing) > 1 {
		t.Errorf("%d requests in flight at the kill are not queued again: %q", len(missing), missing)
	}
	// Leases go back to the head: in each authority's part of the drain,
	// the requests in flight come before every request that was queued and
	// never handed out. One such request may in fact have been handed out:
	// the child's last Next may have returned unprinted.
	lastInFlight := map[string]int{}
	for i, u := range order {
		if inFlight[u] {
			lastInFlight[(&frontier.Request{URL: u}).Authority()] = i
		}
	}
	var early []string
	for i, u := range order {
		if added[u] && !leased[u] {
			if last, ok := lastInFlight[(&frontier.Request{URL: u}).Authority()]; ok && i < last {
				early = append(early, u)
			}
		}
	}
	if len(early) > 1 {
		t.Errorf("queued before requests in flight at the kill, in their authorities' queues: %q", early)
	}
}

// crashChild is the child's crawl: push a few new links and a duplicate,
// take one request, keep up to eight in flight, finish a random one. It
// runs until killed, or gives up after a minute.
func crashChild(dir string) {
	f, err := durable.Open(dir, frontier.WithLeasesPerAuthority(1000))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	say := func(op, u string) { os.Stdout.WriteString(op + " " + u + "\n") }
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	var inFlight []*frontier.Request
	next := 0
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var batch []*frontier.Request
		for j := 0; j < 4; j++ {
			batch = append(batch, &frontier.Request{URL: fmt.Sprintf("http://h%d.example/p/%d", next%17, next), Depth: rng.IntN(3)})
			next++
		}
		batch = append(batch, &frontier.Request{URL: fmt.Sprintf("http://h%d.example/p/%d", (next/2)%17, next/2)})
		if rng.IntN(3) == 0 {
			r := batch[0]
			if res, err := f.Push(ctx, r); err == nil && res == frontier.Added {
				say("A", r.URL)
			}
			batch = batch[1:]
		}
		res, _ := f.PushBatch(ctx, batch)
		for i, r := range batch {
			if res[i] == frontier.Added {
				say("A", r.URL)
			}
		}
		r, err := nextWithin(f, 5*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child Next:", err)
			os.Exit(2)
		}
		say("L", r.URL)
		inFlight = append(inFlight, r)
		if len(inFlight) > 8 {
			i := rng.IntN(len(inFlight))
			r := inFlight[i]
			inFlight = append(inFlight[:i], inFlight[i+1:]...)
			if err := f.Done(ctx, r); err != nil {
				fmt.Fprintln(os.Stderr, "child Done:", err)
				os.Exit(2)
			}
			say("D", r.URL)
		}
	}
	os.Exit(3)
}

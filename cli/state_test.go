package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
)

// stateJob is a `heed crawl --state` job run by the built binary against
// a generated site, stopped and resumed by a test.
type stateJob struct {
	t     *testing.T
	bin   string
	site  *testweb.Site
	dir   string
	items string
	delay time.Duration
	runs  []jobRun
	// extra are arguments given to every run after heed's own.
	extra []string
	// probe, when set, is called with what the running process printed
	// so far, every few milliseconds until it returns true.
	probe func(out string) bool
}

// jobRun is one process of the job: when it started and when it ended,
// and how: killed by a signal (code -1) or its exit status.
type jobRun struct {
	start, end time.Time
	killed     bool
	code       int
	out        string
}

func newStateJob(t *testing.T, bin string, g testweb.Generated, delay time.Duration) *stateJob {
	t.Helper()
	dir := t.TempDir()
	return &stateJob{t: t, bin: bin, site: startSite(t, g), dir: filepath.Join(dir, "state"), items: filepath.Join(dir, "items.jsonl"), delay: delay}
}

func (j *stateJob) command() *exec.Cmd {
	args := []string{"crawl", "--agent", "HeedBot", "--state", j.dir, "--out", j.items,
		"--delay", j.delay.String(), "--timeout", "5s", "--progress", "never"}
	args = append(args, j.extra...)
	return exec.Command(j.bin, append(args, siteArgs(j.site)...)...)
}

// itemLines counts the complete lines of the items file.
func (j *stateJob) itemLines() int {
	b, _ := os.ReadFile(j.items)
	return bytes.Count(b, []byte{'\n'})
}

// run starts the job and stops it with sig once it has written `items`
// more items, or after `after` (whichever comes first; zero values mean
// never), or lets it finish. It records the run.
func (j *stateJob) run(sig syscall.Signal, items int, after time.Duration) jobRun {
	t := j.t
	t.Helper()
	cmd := j.command()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	probe := j.probe
	base := j.itemLines()
	r := jobRun{start: time.Now()}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	var timer <-chan time.Time
	if after > 0 {
		timer = time.After(after)
	}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	var err error
wait:
	for {
		select {
		case err = <-exited:
			break wait
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the job did not end within a minute:\n%s", out.String())
		case <-timer:
			r.end, r.killed = time.Now(), true
			cmd.Process.Signal(sig)
			err = <-exited
			break wait
		case <-tick.C:
			if probe != nil && probe(out.String()) {
				probe = nil
			}
			if items > 0 && j.itemLines()-base >= items {
				r.end, r.killed = time.Now(), true
				cmd.Process.Signal(sig)
				err = <-exited
				break wait
			}
		}
	}
	if r.end.IsZero() {
		r.end = time.Now()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	// killed says the signal ended the process, rather than the process
	// ending before the signal came.
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	r.killed = ws.Signaled()
	r.code = ws.ExitStatus()
	if r.killed {
		r.code = -1
	}
	r.out = out.String()
	j.runs = append(j.runs, r)
	return r
}

// finish runs the job to its end and requires it to say it is complete.
func (j *stateJob) finish() jobRun {
	j.t.Helper()
	r := j.run(0, 0, 0)
	if r.code != 0 || !strings.Contains(r.out, "crawl complete") {
		j.t.Fatalf("final run: exit %d\n%s", r.code, r.out)
	}
	return r
}

// check compares the whole job with the oracle: every URL the site's crawl
// discovers is fetched or skip-logged, exactly once in the skip log, never
// both; and a page fetched more than once was in flight when a run was
// killed. It returns the number of pages fetched again.
func (j *stateJob) check(kills int, inFlight int) int {
	t := j.t
	t.Helper()
	exp := j.site.Expected("HeedBot")
	requested := j.site.PageRequests()
	skipped := heedtest.ReadSkipLog(t, filepath.Join(j.dir, "skipped.jsonl"))
	checkSkipReasons(t, skipped, exp.Skipped)
	for u, r := range skipped {
		if requested[u] > 0 {
			t.Errorf("%s both fetched and skip-logged (%s)", u, r.Reason)
		}
	}
	refetched := 0
	for u, n := range fetchedAgain(t, requested, exp) {
		refetched += n
		j.checkInFlightAtKill(u)
	}
	// Per authority and kill: the request in flight, and the one before
	// it if its Done had not reached the disk (the durable frontier writes
	// Done without waiting for fsync; it is flushed within milliseconds,
	// well within an interval, before which the next lease is not made).
	if limit := 2 * kills * inFlight; refetched > limit {
		t.Errorf("%d pages fetched again, more than 2 × %d kills × %d in flight", refetched, kills, inFlight)
	}
	robots := map[string]int{}
	for _, h := range j.site.Hits() {
		if h.Path == "/robots.txt" {
			robots[h.Authority]++
		}
	}
	for a, n := range robots {
		if n > 1+kills {
			t.Errorf("%s: robots.txt fetched %d times in %d kills", a, n, kills)
		}
	}

	// The feed holds whole records, one per fetched page; a page fetched
	// again after a kill may have its item twice.
	items := heedtest.ReadFeed(t, j.items)
	dupItems := 0
	for u, n := range items {
		if requested[u] == 0 {
			t.Errorf("item for %s, which was not fetched", u)
		}
		dupItems += n - 1
	}
	for u := range exp.Fetched {
		if items[u] == 0 {
			t.Errorf("no item for %s", u)
		}
	}
	if dupItems > refetched {
		t.Errorf("%d duplicate items, more than the %d pages fetched again", dupItems, refetched)
	}
	return refetched
}

// checkInFlightAtKill requires that the first request of a page fetched
// twice arrived during a run that was killed: only requests in flight at
// a kill (or done a moment before it, their Done not yet on disk) are
// fetched again.
func (j *stateJob) checkInFlightAtKill(u string) {
	var first time.Time
	for _, h := range j.site.Hits() {
		if h.Authority+h.Path == u {
			first = h.Time
			break
		}
	}
	for i, r := range j.runs {
		// A request sent just before the kill may reach the server's
		// handler just after: a killed run's requests arrive until the
		// next run starts.
		if r.killed && !first.Before(r.start) && i+1 < len(j.runs) && first.Before(j.runs[i+1].start) {
			return
		}
	}
	j.t.Errorf("%s fetched twice, but its first request (%s) was in no killed run", u, first.Format(time.StampMicro))
}

// checkPacing checks invariant 6 at the server across every restart:
// consecutive requests to one authority (robots.txt included) are at
// least the interval apart, in particular the last of a stopped run and
// the first of the next. It returns the smallest gap across a restart.
func (j *stateJob) checkPacing() time.Duration {
	runOf := func(t time.Time) int {
		for i := len(j.runs) - 1; i >= 0; i-- {
			if !t.Before(j.runs[i].start) {
				return i
			}
		}
		return -1
	}
	smallest := time.Duration(1<<63 - 1)
	eachGap(j.site, func(auth string, prev, next testweb.Hit) {
		gap := next.Time.Sub(prev.Time)
		across := runOf(next.Time) != runOf(prev.Time)
		if across && gap < smallest {
			smallest = gap
		}
		if gap < j.delay {
			where := "within a run"
			if across {
				where = "across a restart"
			}
			j.t.Errorf("%s: %s then %s only %v apart %s (interval %v)", auth, prev.Path, next.Path, gap, where, j.delay)
		}
	})
	return smallest
}

// TestStateJobs runs `heed crawl --state` as a real process: killed with
// SIGKILL at random points and resumed until complete; paused with SIGINT
// and resumed; and paced across restarts.
func TestStateJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHeed(t)
	site := testweb.Generated{Hosts: 4, PagesPerHost: 60, PageBytes: 1024, LinksPerPage: 5, CrossHostFraction: 0.2, DisallowFraction: 0.1}

	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprintf("kill -9, seed %d", seed), func(t *testing.T) {
			g := site
			g.Seed = int64(seed)
			j := newStateJob(t, bin, g, 25*time.Millisecond)
			rng := rand.New(rand.NewPCG(seed, 99))
			kills, statusChecked := 0, false
			for i := 0; i < 4; i++ {
				// Kill after some items, or at a moment that may fall in
				// the start-up, a robots.txt fetch or a page's links.
				var r jobRun
				if rng.IntN(3) == 0 {
					r = j.run(syscall.SIGKILL, 0, time.Duration(50+rng.IntN(500))*time.Millisecond)
				} else {
					r = j.run(syscall.SIGKILL, 3+rng.IntN(30), 0)
				}
				if r.code == -1 {
					kills++
					if !statusChecked && j.itemLines() > 0 {
						statusChecked = true
						code, out, errOut := runHeed(t, "status", "--state", j.dir)
						if code != 0 || !strings.Contains(out, "stopped without closing (killed?)") {
							t.Errorf("status after a kill: exit %d\n%s%s", code, out, errOut)
						}
					}
				} else if r.code != 0 {
					t.Fatalf("run %d: exit %d\n%s", i+1, r.code, r.out)
				}
			}
			if kills < 3 || !statusChecked {
				t.Fatalf("only %d of 4 runs were killed before the job ended (status checked: %v)", kills, statusChecked)
			}
			final := j.finish()
			refetched := j.check(kills, g.Hosts)
			t.Logf("%d kills, %d runs; %d pages fetched again; final run:\n%s", kills, len(j.runs), refetched, final.out)
		})
	}

	t.Run("SIGINT pauses, the same command resumes", func(t *testing.T) {
		g := site
		g.Seed = 3
		j := newStateJob(t, bin, g, 25*time.Millisecond)

		// While the crawl runs, status says it runs, by which process.
		cmd := j.command()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); j.itemLines() < 5 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		code, out, errOut := runHeed(t, "status", "--state", j.dir)
		// A second crawl on the state is refused before it touches the
		// feed.
		feedBefore, _ := os.ReadFile(j.items)
		code2, out2, errOut2 := runHeed(t, j.command().Args[1:]...)
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		if code != 0 || !strings.Contains(out, fmt.Sprintf("job: running: pid %d on ", cmd.Process.Pid)) {
			t.Errorf("status during a crawl: exit %d\n%s%s", code, out, errOut)
		}
		if code2 != 1 || !strings.Contains(errOut2, "in use by another heed process (pid") {
			t.Errorf("a second crawl on the state: exit %d\n%s%s", code2, out2, errOut2)
		}
		if feedAfter, _ := os.ReadFile(j.items); !bytes.HasPrefix(feedAfter, feedBefore) {
			t.Error("the refused crawl changed the feed")
		}

		r := j.run(syscall.SIGINT, 20, 0)
		if r.code != 130 || !strings.Contains(r.out, "crawl paused") || !strings.Contains(r.out, "run the same command to resume") {
			t.Fatalf("paused run: exit %d\n%s", r.code, r.out)
		}
		code, out, errOut = runHeed(t, "status", "--state", j.dir)
		if code != 0 || !strings.Contains(out, "job: paused") || !strings.Contains(out, "queued by authority:") || !strings.Contains(out, "robots.txt by authority:") {
			t.Errorf("status of a paused job: exit %d\n%s%s", code, out, errOut)
		}
		t.Logf("paused run:\n%s\nheed status:\n%s", r.out, out)
		j.finish()
		if n := j.check(0, 0); n != 0 {
			t.Errorf("%d pages fetched twice across pauses", n)
		}
		before := len(j.site.Hits())
		again := j.run(0, 0, 0)
		if again.code != 0 || !strings.Contains(again.out, "crawl already complete") {
			t.Errorf("run on a complete job: exit %d\n%s", again.code, again.out)
		}
		if n := len(j.site.Hits()) - before; n != 0 {
			t.Errorf("a complete job made %d requests", n)
		}
		code, out, _ = runHeed(t, "status", "--state", j.dir, "--json")
		var rep jobstate.Report
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("status --json: exit %d, %v\n%s", code, err, out)
		}
		exp := j.site.Expected("HeedBot")
		if !rep.Job.Complete || rep.Job.Runs != len(j.runs)+1 || rep.Frontier.Queued != 0 || rep.Stats == nil ||
			rep.Stats.Pages != int64(len(exp.Fetched)) || rep.Skipped.Total != len(exp.Skipped) || len(rep.Robots) != g.Hosts {
			t.Errorf("status of the complete job: job %+v, queued %d, pages %v (want %d), skipped %d (want %d), robots %d",
				rep.Job, rep.Frontier.Queued, rep.Stats, len(exp.Fetched), rep.Skipped.Total, len(exp.Skipped), len(rep.Robots))
		}
	})

	t.Run("no burst after a restart", func(t *testing.T) {
		// An interval longer than a restart takes: without the pacing
		// carried over, the first request of the next process would come
		// sooner than the interval after the last of the killed one.
		g := testweb.Generated{Hosts: 3, PagesPerHost: 8, PageBytes: 512, LinksPerPage: 2, Seed: 4}
		j := newStateJob(t, bin, g, 400*time.Millisecond)
		kills := 0
		for _, n := range []int{3, 4, 3} {
			if r := j.run(syscall.SIGKILL, n, 0); r.code == -1 {
				kills++
			}
		}
		j.finish()
		j.check(kills, g.Hosts)
		smallest := j.checkPacing()
		t.Logf("%d kills; smallest gap across a restart %v (interval %v)", kills, smallest, j.delay)
		if kills < 2 {
			t.Errorf("only %d kills", kills)
		}
	})
}

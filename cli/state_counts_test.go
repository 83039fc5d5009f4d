package cli

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedcrawl/heed/internal/testweb"
)

// TestStateCountsAfterAKillAreSaidApproximate kills a `heed crawl --state`
// process with SIGKILL: its last second of counts never reached the
// state, so `heed status` and every later summary of the job must say
// the job's page counts are approximate, while a job only ever paused
// (SIGINT) says nothing of the kind.
func TestStateCountsAfterAKillAreSaidApproximate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHeed(t)
	g := testweb.Generated{Hosts: 2, PagesPerHost: 40, PageBytes: 512, LinksPerPage: 4, Seed: 7}

	killed := newStateJob(t, bin, g, 20*time.Millisecond)
	if r := killed.run(syscall.SIGKILL, 5, 0); r.code != -1 {
		t.Fatalf("the run was not killed: exit %d\n%s", r.code, r.out)
	}
	code, out, errOut := runHeed(t, "status", "--state", killed.dir)
	if code != 0 || !strings.Contains(out, "progress at the last checkpoint (APPROXIMATE") {
		t.Errorf("status after a kill does not say its counts are approximate: exit %d\n%s%s", code, out, errOut)
	}
	final := killed.finish()
	if !strings.Contains(final.out, "APPROXIMATE: 1 runs of this job were killed") {
		t.Errorf("the summary of a job with a killed run does not say its counts are approximate:\n%s", final.out)
	}
	code, out, _ = runHeed(t, "status", "--state", killed.dir)
	if code != 0 || !strings.Contains(out, "APPROXIMATE: 1 runs of this job were killed") {
		t.Errorf("status of the completed job does not say its counts are approximate:\n%s", out)
	}

	paused := newStateJob(t, bin, g, 20*time.Millisecond)
	if r := paused.run(syscall.SIGINT, 5, 0); r.code == -1 {
		t.Fatalf("SIGINT killed the process\n%s", r.out)
	}
	final = paused.finish()
	_, out, _ = runHeed(t, "status", "--state", paused.dir)
	if strings.Contains(final.out+out, "APPROXIMATE") {
		t.Errorf("a job never killed says its counts are approximate:\n%s\n%s", final.out, out)
	}
}
